package dev.ax.ticker.reaper;

import dev.ax.common.store.Jdbc;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.RunningShardFirings;
import dev.ax.common.store.ShardEvents;
import dev.ax.common.store.ShardFirings;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The reaper's settlement of sharded firings whose shards all ended without a dispatcher settling
 * them: shards cancelled by a lifecycle command, skipped, or ended DEAD by the reaper itself. (A
 * dispatcher settles a firing in the transaction that records its last shard's success or dead
 * letter; this pass is for every other way a shard ends.) One pass looks at the next page of at
 * most {@link #MAX_PER_PASS} firings still running shards (one index range over the RUNNING rows,
 * which are as many as the runs in flight, whatever the history), reads their shards without a
 * lock, and locks and settles only those whose shards have all ended.
 *
 * <p>Thread-safety: not thread-safe (its cursor); used from the reaper's thread only.
 */
public final class ShardSettlement {

  private final Jdbc jdbc;
  private final ShardEvents events;
  private final EndedRunEmitter emitter;
  private final int maxPerPass;
  private final Counter settled;

  /** Where the next pass goes on: each pass looks at the next page, then starts over. */
  private RunningShardFirings.Cursor cursor = RunningShardFirings.Cursor.START;

  /**
   * The most firings one pass looks at: each is a few primary-key reads, and only those whose
   * shards have all ended are locked.
   */
  static final int MAX_PER_PASS = 200;

  public ShardSettlement(
      DataSource dataSource,
      ShardEvents events,
      EndedRunEmitter emitter,
      int maxPerPass,
      MeterRegistry meters) {
    this.jdbc = new Jdbc(dataSource);
    this.events = events;
    this.emitter = emitter;
    this.maxPerPass = Math.min(maxPerPass, MAX_PER_PASS);
    this.settled =
        Counter.builder("ax.reaper.shard.firings.settled")
            .description("sharded firings the reaper settled after their last shard ended")
            .register(meters);
  }

  /**
   * Settles what has ended among the next page of firings still running shards: pages go round, so
   * a firing that waits long (its task paused) never keeps the others from being looked at.
   */
  void pass(String actor, long nowMs) {
    List<RunningShardFirings.Running> page =
        RunningShardFirings.unsettled(jdbc, cursor, maxPerPass);
    cursor =
        page.size() < maxPerPass
            ? RunningShardFirings.Cursor.START
            : page.get(page.size() - 1).cursor();
    if (page.isEmpty()) {
      return;
    }
    List<String> firings =
        RunningShardFirings.endedAmong(
            jdbc, page.stream().map(RunningShardFirings.Running::instanceId).toList());
    if (firings.isEmpty()) {
      return;
    }
    String token = UUID.randomUUID().toString();
    List<OutboxMessage> owed = new ArrayList<>();
    int count =
        jdbc.inPacketTransaction(
            "settling sharded firings",
            transaction -> {
              owed.clear(); // a transaction tried again starts over
              List<ShardFirings.Settled> done =
                  ShardFirings.settle(transaction.connection(), firings, actor, nowMs);
              owed.addAll(events.settled(done, nowMs));
              if (!owed.isEmpty()) {
                transaction.outbox(owed, token, nowMs);
              }
              return done.size();
            });
    if (count > 0) {
      settled.increment(count);
      emitter.send(token, owed);
    }
  }
}
