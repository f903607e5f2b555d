package dev.ax.ticker.reaper;

import dev.ax.common.store.Jdbc;
import dev.ax.common.store.OutboxMessage;
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
 * letter; this pass is for every other way a shard ends.) One pass looks at the oldest {@code
 * maxPerPass} firings still running shards: one index range over the RUNNING rows, which are as
 * many as the runs in flight, whatever the history.
 *
 * <p>Thread-safety: used from the reaper's thread only.
 */
public final class ShardSettlement {

  private final Jdbc jdbc;
  private final ShardEvents events;
  private final EndedRunEmitter emitter;
  private final int maxPerPass;
  private final Counter settled;

  public ShardSettlement(
      DataSource dataSource,
      ShardEvents events,
      EndedRunEmitter emitter,
      int maxPerPass,
      MeterRegistry meters) {
    this.jdbc = new Jdbc(dataSource);
    this.events = events;
    this.emitter = emitter;
    this.maxPerPass = maxPerPass;
    this.settled =
        Counter.builder("ax.reaper.shard.firings.settled")
            .description("sharded firings the reaper settled after their last shard ended")
            .register(meters);
  }

  /** Settles what has ended among the oldest firings still running shards. */
  void pass(String actor, long nowMs) {
    List<String> firings = ShardFirings.unsettled(jdbc, maxPerPass);
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
