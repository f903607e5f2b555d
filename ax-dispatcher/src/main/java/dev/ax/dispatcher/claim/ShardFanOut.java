package dev.ax.dispatcher.claim;

import dev.ax.common.store.DueInstance;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.ShardEvents;
import dev.ax.common.store.ShardFirings;
import dev.ax.common.store.StoreException;
import dev.ax.common.store.StoredTask;
import dev.ax.common.time.Clock;
import dev.ax.dispatcher.run.OutboxRelay;
import dev.ax.dispatcher.store.ClaimedInstance;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fans out the sharded firings this dispatcher claimed ({@link ShardFirings#fanOut}): in one
 * transaction per batch, each firing is handed from this dispatcher to its shards, which are
 * created DISPATCHED with their due events in the outbox; the events are then sent (keyed by shard,
 * so the shards spread over the dispatchers). Nothing runs here: each shard is claimed and run like
 * any instance. If the transaction fails, the firings stay claimed by this dispatcher with their
 * lease, which nobody renews: the reaper takes them back when it ends and they are claimed and
 * fanned out again (shard ids are deterministic, so nothing is made twice).
 *
 * <p>Thread-safety: called by the claim loop's thread; its parts are thread-safe.
 */
public final class ShardFanOut {

  private static final Logger log = LoggerFactory.getLogger(ShardFanOut.class);

  private final Jdbc jdbc;
  private final LeaseStore leases;
  private final ShardEvents events;
  private final OutboxRelay relay;
  private final String owner;
  private final Clock clock;
  private final Counter fannedOut;

  public ShardFanOut(
      DataSource dataSource,
      ShardEvents events,
      OutboxRelay relay,
      String owner,
      Clock clock,
      MeterRegistry meters) {
    this.jdbc = new Jdbc(dataSource);
    this.leases = new LeaseStore(dataSource);
    this.events = events;
    this.relay = relay;
    this.owner = owner;
    this.clock = clock;
    this.fannedOut =
        Counter.builder("ax.dispatcher.shard.instances")
            .description("shard instances created by fanning out sharded firings")
            .register(meters);
  }

  /** Fans out {@code firings}, each claimed by this dispatcher, with its task. */
  void fanOut(List<Map.Entry<ClaimedInstance, StoredTask>> firings) {
    if (firings.isEmpty()) {
      return;
    }
    String token = UUID.randomUUID().toString();
    List<OutboxMessage> owed;
    try {
      // The current ticker epoch: the dispatchers drop a due event older than the newest they saw.
      long epoch = leases.newestEpoch(LeaseFence.TICKER);
      long nowMs = clock.millis();
      owed =
          jdbc.inPacketTransaction(
              "fanning out " + firings.size() + " sharded firing(s)",
              transaction -> {
                List<OutboxMessage> messages = new ArrayList<>();
                for (Map.Entry<ClaimedInstance, StoredTask> firing : firings) {
                  ClaimedInstance claimed = firing.getKey();
                  List<DueInstance> shards =
                      ShardFirings.fanOut(
                          transaction.connection(),
                          new ShardFirings.Firing(
                              claimed.instanceId(),
                              claimed.taskId(),
                              claimed.taskVersion(),
                              claimed.attempt(),
                              claimed.dueAtMs(),
                              claimed.traceId(),
                              claimed.flowRunId()),
                          firing.getValue().spec().shardTotal(),
                          owner,
                          epoch,
                          nowMs);
                  messages.addAll(
                      events.due(shards, epoch, firing.getValue().spec().group(), nowMs));
                }
                if (!messages.isEmpty()) {
                  transaction.outbox(messages, token, nowMs);
                }
                return messages;
              });
    } catch (StoreException e) {
      log.warn(
          "Could not fan out {} sharded firing(s), e.g. {}: they stay claimed until their lease"
              + " ends, then the reaper takes them back and they are fanned out again: {}",
          firings.size(),
          firings.get(0).getKey().instanceId(),
          e.toString());
      return;
    }
    fannedOut.increment(owed.size());
    try {
      relay.send(token, owed, (message, error) -> {});
    } catch (RuntimeException e) {
      log.warn(
          "Could not send {} shard due event(s) now; the outbox relays them: {}",
          owed.size(),
          e.toString());
    }
  }
}
