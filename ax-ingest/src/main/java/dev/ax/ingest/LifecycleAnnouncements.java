package dev.ax.ingest;

import dev.ax.common.kafka.AnnouncementRecords;
import dev.ax.common.model.TriggerGroups;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Tells the ticker, on {@code scheduledTopic}, of the instances a lifecycle command made due: those
 * a RESUME made SCHEDULED again (it fires them late) or a RUN_NOW created (due now). The records
 * are ingest's announcements, trigger group and trace header included.
 *
 * <p>Thread-safe as its parts are; {@link LifecycleIntake} calls it from ingest's consumer thread.
 *
 * @param tasks where the trigger group of a task named alone is read
 * @param producer ingest's own; not closed here
 * @param scheduledTopic {@code ax.task.scheduled}
 */
record LifecycleAnnouncements(
    TaskStore tasks, KafkaProducer<String, byte[]> producer, String scheduledTopic) {

  /**
   * Announces {@code due} of task {@code taskId}, whose trigger group is read first; nothing when
   * the task was removed meanwhile (there is nothing to fire).
   */
  void announce(String taskId, List<DueInstance> due, List<Future<RecordMetadata>> sends) {
    if (due.isEmpty()) {
      return;
    }
    Optional<StoredTask> task = tasks.find(taskId);
    if (task.isEmpty()) {
      return;
    }
    announce(taskId, TriggerGroups.keyOf(task.get().spec().trigger()), due, sends);
  }

  /** Announces {@code due} of task {@code taskId} in {@code triggerGroup}; adds each send. */
  void announce(
      String taskId,
      String triggerGroup,
      List<DueInstance> due,
      List<Future<RecordMetadata>> sends) {
    for (DueInstance instance : due) {
      sends.add(
          producer.send(
              AnnouncementRecords.of(
                  scheduledTopic,
                  taskId,
                  instance.instanceId(),
                  instance.dueAtMs(),
                  instance.traceId(),
                  instance.seq(),
                  triggerGroup)));
    }
  }
}
