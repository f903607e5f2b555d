package dev.ax.dispatcher.intake;

import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.EventDecoder;
import dev.ax.common.kafka.FetchPause;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.dispatcher.claim.ClaimInbox;
import dev.ax.dispatcher.claim.ClaimLoop;
import dev.ax.dispatcher.claim.PooledEvent;
import dev.ax.dispatcher.run.Bulkheads;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatcher's intake: decodes each polled batch of due events, drops those of a stale ticker
 * epoch ({@link TickerEpochs}), finds the pool each event waits for, and hands the batch to the
 * {@link ClaimLoop} through its {@link ClaimInbox}. Before each poll it applies back-pressure:
 * while the claim loop has a poll's worth of events its pools cannot take, every assigned partition
 * is paused (again on every poll, since a rebalance hands partitions over unpaused), staying in the
 * group. On revocation it asks the claim loop to hand held events back.
 *
 * <p>Threading: every method runs on the consumer thread; this class shares nothing with the claim
 * loop but its inbox, so the consumer never waits on a claim's round trip (at most {@link
 * #PICKUP_WAIT} for the loop to take the last batch, as long as a paused poll lasts anyway). Its
 * database reads (the ticker lease for a new epoch, the groups of tasks it has not seen) are made
 * here without a lock; if one fails, the consumer loop tries the whole batch again.
 */
public final class DueIntake implements ConsumerLoop.BatchHandler {

  private static final Logger log = LoggerFactory.getLogger(DueIntake.class);

  /** How long, before a poll, the intake waits for the claim loop to take the last batch. */
  static final Duration PICKUP_WAIT = Duration.ofMillis(100);

  private final Clock clock;
  private final String dueRetryTopic;
  private final EventDecoder<TaskDueEvent> dueEvents;
  private final TickerEpochs epochs;
  private final TaskGroups taskGroups;
  private final Bulkheads bulkheads;
  private final ClaimInbox claims;
  private final int pollSize;
  private final Counter staleEpoch;
  private final FetchPause fetching = new FetchPause();

  /**
   * @param tickerLeases where the ticker lease's epoch is read, for an epoch not seen before
   * @param claims the claim loop's inbox, where batches go and the backlog is read
   * @param dueRetryTopic the topic of retries' due events, which carry no ticker epoch
   * @param pollSize the consumer's {@code max.poll.records}: the backlog at which fetching pauses
   */
  public DueIntake(
      LeaseStore tickerLeases,
      TaskGroups taskGroups,
      Bulkheads bulkheads,
      ClaimInbox claims,
      String dueRetryTopic,
      int pollSize,
      Clock clock,
      MeterRegistry meters) {
    this.clock = clock;
    this.epochs = new TickerEpochs(tickerLeases, clock);
    this.taskGroups = taskGroups;
    this.bulkheads = bulkheads;
    this.claims = claims;
    this.dueRetryTopic = dueRetryTopic;
    this.pollSize = pollSize;
    this.dueEvents = EventDecoder.of(TaskDueEvent.class, "due event", "dispatcher", meters);
    this.staleEpoch = meters.counter("ax.dispatcher.stale.epoch.events");
  }

  @Override
  public void handle(ConsumerRecords<String, byte[]> records) {
    List<TaskDueEvent> events = new ArrayList<>();
    List<Boolean> retried = new ArrayList<>();
    dueEvents.forEachEvent(
        records,
        (record, event) -> {
          boolean fromRetry = record.topic().equals(dueRetryTopic);
          if (!fromRetry && !epochs.admit(event.epoch())) {
            dueEvents.skipped(
                record,
                "epoch "
                    + event.epoch()
                    + " is newer than any ticker lease ("
                    + epochs.leaseEpochRead()
                    + ")");
          } else {
            events.add(event);
            retried.add(fromRetry);
          }
        });
    if (events.isEmpty()) {
      return;
    }
    if (log.isDebugEnabled()) {
      long nowMs = clock.millis();
      long maxTransitMs = 0;
      for (TaskDueEvent event : events) {
        maxTransitMs =
            Math.max(maxTransitMs, SaturatingMillis.subtract(nowMs, event.emittedAtMs()));
      }
      log.debug("Polled {} due event(s), in transit up to {} ms", events.size(), maxTransitMs);
    }
    Map<String, String> groups = taskGroups.of(events);
    List<PooledEvent> batch = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      TaskDueEvent event = events.get(i);
      if (!retried.get(i) && epochs.isStale(event.epoch())) {
        // Sent by a leader that has since lost its lease. Its instance, if still unclaimed, is
        // emitted again by the new leader at its epoch (Reaper#adoptPredecessorDispatches).
        staleEpoch.increment();
        log.debug(
            "Dropping due event of {} from epoch {} (newest seen {})",
            event.instanceId(),
            event.epoch(),
            epochs.newest());
        continue;
      }
      // Held by pool name, not raw group: a bounded set of keys, and a task group can never be
      // mistaken for the retry pool (poolFor never returns it).
      String pool =
          retried.get(i)
              ? Bulkheads.RETRY_GROUP
              : bulkheads.poolFor(groups.getOrDefault(event.taskId(), TaskSpec.DEFAULT_GROUP));
      batch.add(new PooledEvent(pool, event));
    }
    claims.offer(batch);
  }

  @Override
  public void beforePoll(KafkaConsumer<String, byte[]> consumer) {
    claims.awaitPickedUp(PICKUP_WAIT);
    switch (fetching.apply(consumer, claims.backlog() >= pollSize)) {
      case PAUSED -> log.debug("Worker pool full: fetching paused");
      case RESUMED -> log.debug("Worker pool has room: fetching resumed");
      case NONE -> {}
    }
  }

  @Override
  public void onRevoked(Collection<TopicPartition> partitions) {
    if (!partitions.isEmpty()) {
      // Handed over, not waited for: the events' offsets are committed already, and whoever
      // owns their partitions when the copies arrive claims them.
      claims.requestHandBack("partitions revoked");
    }
  }
}
