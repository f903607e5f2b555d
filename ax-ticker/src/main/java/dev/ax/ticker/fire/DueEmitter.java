package dev.ax.ticker.fire;

import dev.ax.common.kafka.DueRecords;
import dev.ax.common.store.DueInstance;
import dev.ax.common.trace.TraceLog;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Emits due events for instances the ticker (or its reaper) just moved to DISPATCHED, oldest due
 * first, each carrying the leader's epoch.
 *
 * <p>A send the broker refused (a restart: the producer's sequence out of order, a partition's
 * leader gone) is sent again by {@link #resendFailed()}, which the ticker calls every {@link
 * #RESEND_EVERY}, up to {@link #MAX_SENDS} times and for at most {@link #MAX_PENDING} events at
 * once: the instance is due now, and the reaper's bound for unclaimed instances ({@code
 * AX_REAPER_UNCLAIMED_AFTER}, 30 s by default) is far longer than a broker restart. What is given
 * up on stays DISPATCHED for the reaper. A re-sent event may arrive twice; the claim is
 * conditional.
 *
 * <p>Thread-safe: the producer is, and failed sends wait in a concurrent queue.
 */
public final class DueEmitter {

  private static final Logger log = LoggerFactory.getLogger(DueEmitter.class);

  /** The instances a batch's log line names (then a count). */
  private static final int LOGGED_IDS = 5;

  /** How often the ticker calls {@link #resendFailed()}. */
  public static final java.time.Duration RESEND_EVERY = java.time.Duration.ofMillis(500);

  /** Sends of one event, the first included, before it is left to the reaper. */
  static final int MAX_SENDS = 5;

  /** Failed events waiting to be sent again, at most; beyond, they are left to the reaper. */
  static final int MAX_PENDING = 100_000;

  private record Failed(ProducerRecord<String, byte[]> record, String instanceId, int sends) {}

  private final Producer<String, byte[]> producer;
  private final String topic;
  private final ConcurrentLinkedQueue<Failed> failed = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pending = new AtomicInteger();

  public DueEmitter(Producer<String, byte[]> producer, String topic) {
    this.producer = producer;
    this.topic = topic;
  }

  public void emit(List<DueInstance> dispatched, long epoch, long nowMs) {
    emit(dispatched, epoch, nowMs, Map.of());
  }

  /**
   * @param groupByTask the task groups known to the caller; tasks missing here go without
   */
  public void emit(
      List<DueInstance> dispatched, long epoch, long nowMs, Map<String, String> groupByTask) {
    List<DueInstance> ordered =
        dispatched.stream().sorted(Comparator.comparingLong(DueInstance::dueAtMs)).toList();
    for (DueInstance instance : ordered) {
      send(
          new Failed(
              DueRecords.of(topic, instance, epoch, nowMs, groupByTask.get(instance.taskId())),
              instance.instanceId(),
              0));
    }
    if (log.isDebugEnabled() && !ordered.isEmpty()) {
      log.debug(
          "Emitted {} due event(s) at epoch {}: {}",
          ordered.size(),
          epoch,
          TraceLog.firstIds(ordered, DueInstance::instanceId, DueInstance::traceId, LOGGED_IDS));
    }
  }

  /** Sends again the events the broker refused since the last call; the number sent. */
  public int resendFailed() {
    int resent = 0;
    for (int n = pending.get(); n > 0; n--) {
      Failed next = failed.poll();
      if (next == null) {
        break;
      }
      pending.decrementAndGet();
      send(next);
      resent++;
    }
    if (resent > 0) {
      log.info("Sending {} due event(s) again that the broker refused", resent);
    }
    return resent;
  }

  /** Due events waiting to be sent again. */
  public int pendingResends() {
    return pending.get();
  }

  private void send(Failed event) {
    Failed sent = new Failed(event.record(), event.instanceId(), event.sends() + 1);
    producer.send(
        sent.record(),
        (metadata, error) -> {
          if (error == null) {
            return;
          }
          if (sent.sends() < MAX_SENDS) {
            if (pending.incrementAndGet() <= MAX_PENDING) {
              failed.add(sent);
              log.debug(
                  "Due event for {} refused, sent again shortly: {}", sent.instanceId(), error);
              return;
            }
            pending.decrementAndGet();
          }
          log.error(
              "Due event for {} not sent after {} send(s); it stays DISPATCHED until the reaper"
                  + " emits it again: {}",
              sent.instanceId(),
              sent.sends(),
              error.toString());
        });
  }
}
