package dev.ax.ticker;

import dev.ax.common.kafka.DueRecords;
import dev.ax.common.store.DueInstance;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Emits due events for instances the ticker (or its reaper) just moved to DISPATCHED, oldest due
 * first, each carrying the leader's epoch. A send that fails leaves the row DISPATCHED; the reaper
 * emits it again once it has waited unclaimed for its bound. Thread-safe (the producer is).
 */
public final class DueEmitter {

  private static final Logger log = LoggerFactory.getLogger(DueEmitter.class);

  private final KafkaProducer<String, byte[]> producer;
  private final String topic;

  public DueEmitter(KafkaProducer<String, byte[]> producer, String topic) {
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
      producer.send(
          DueRecords.of(topic, instance, epoch, nowMs, groupByTask.get(instance.taskId())),
          (metadata, error) -> {
            if (error != null) {
              log.error(
                  "Due event for {} not sent; it stays DISPATCHED until re-emitted [traceId={}]: {}",
                  instance.instanceId(),
                  instance.traceId(),
                  error.toString());
            }
          });
    }
  }
}
