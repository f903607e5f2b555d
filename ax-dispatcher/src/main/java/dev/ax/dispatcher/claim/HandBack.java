package dev.ax.dispatcher.claim;

import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.kafka.DueRecords;
import dev.ax.common.kafka.Topics;
import dev.ax.dispatcher.run.Bulkheads;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends held (unclaimed) due events back to their topic, keyed as before, so whoever owns their
 * partition next claims them at once instead of the reaper after {@code AX_REAPER_UNCLAIMED_AFTER}.
 * The offsets of these events are already committed; the claim being conditional, a copy that
 * reaches a dispatcher that also still holds the original runs once.
 *
 * <p>Thread-safety: called by the {@link ClaimLoop}'s thread only (on revocation and at stop); the
 * producer is thread-safe.
 */
public final class HandBack {

  private static final Logger log = LoggerFactory.getLogger(HandBack.class);

  private final Producer<String, byte[]> producer;
  private final String dueTopic;
  private final String dueRetryTopic;
  private final Counter handedBack;

  public HandBack(Producer<String, byte[]> producer, Topics topics, MeterRegistry meters) {
    this.producer = producer;
    this.dueTopic = topics.due();
    this.dueRetryTopic = topics.dueRetry();
    this.handedBack = meters.counter("ax.dispatcher.handed.back.events");
  }

  /** Sends {@code byPool}'s events to the topic each pool reads from, and waits for the broker. */
  void send(Map<String, List<TaskDueEvent>> byPool, String why) {
    int count = 0;
    for (Map.Entry<String, List<TaskDueEvent>> pool : byPool.entrySet()) {
      String topic = pool.getKey().equals(Bulkheads.RETRY_GROUP) ? dueRetryTopic : dueTopic;
      for (TaskDueEvent event : pool.getValue()) {
        producer.send(DueRecords.of(topic, event)); // the trace header travels with it
        count++;
      }
    }
    if (count > 0) {
      producer.flush();
      handedBack.increment(count);
      log.info("Handed {} unclaimed due event(s) back to their topic: {}", count, why);
    }
  }
}
