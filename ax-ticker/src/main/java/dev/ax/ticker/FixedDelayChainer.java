package dev.ax.ticker;

import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.AnnouncementRecords;
import dev.ax.common.kafka.EventDecoder;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerGroups;
import dev.ax.common.model.TriggerType;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.common.trace.TraceIds;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the next firing of FIXED_DELAY tasks: it reads completion events and, for a task whose
 * trigger is FIXED_DELAY, creates the instance due {@code interval} after the run ended (id {@code
 * taskId@thatMillis}, so a replayed event creates nothing new) and announces it on {@code
 * ax.task.scheduled} for the leader's wheel. A task that has a SCHEDULED instance already gets no
 * second one, so one chain per task.
 *
 * <p>Threading: called from one consumer thread ({@code ConsumerLoop}).
 */
final class FixedDelayChainer {

  private static final Logger log = LoggerFactory.getLogger(FixedDelayChainer.class);

  private final TaskStore tasks;
  private final InstanceStore instances;
  private final FiringStore firings;
  private final KafkaProducer<String, byte[]> producer;
  private final String scheduledTopic;
  private final String actor;
  private final EventDecoder<TaskCompletedEvent> completions;
  private final Clock clock;

  /**
   * @param context the stage's: its clock, its node id (the actor of the instances it creates), the
   *     announcement topic, and the meter of unreadable completion events
   */
  FixedDelayChainer(
      StageContext context,
      TaskStore tasks,
      InstanceStore instances,
      FiringStore firings,
      KafkaProducer<String, byte[]> producer) {
    this.tasks = tasks;
    this.instances = instances;
    this.firings = firings;
    this.producer = producer;
    this.scheduledTopic = context.topics().scheduled();
    this.actor = context.nodeId();
    this.clock = context.clock();
    this.completions =
        EventDecoder.of(TaskCompletedEvent.class, "completion event", "ticker", context.meters());
  }

  /** False when the record's trigger-type header names another type: no need to parse it. */
  private static boolean mayBeFixedDelay(ConsumerRecord<String, byte[]> record) {
    Header header = record.headers().lastHeader(RejectHeaders.TRIGGER_TYPE);
    return header == null
        || header.value() == null
        || TriggerType.FIXED_DELAY
            .name()
            .equals(new String(header.value(), StandardCharsets.UTF_8));
  }

  void handle(ConsumerRecords<String, byte[]> records) throws Exception {
    Map<String, TaskCompletedEvent> latestByTask = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      if (!mayBeFixedDelay(record)) {
        continue;
      }
      Optional<TaskCompletedEvent> decoded = completions.decode(record);
      if (decoded.isEmpty()) {
        continue;
      }
      TaskCompletedEvent event = decoded.get();
      if (event.instanceStatus() == InstanceStatus.RETRYING) {
        continue; // the run is not over: the next firing counts from its last attempt
      }
      if (event.triggerType() != null && event.triggerType() != TriggerType.FIXED_DELAY) {
        continue; // not a chain: no need to look the task up
      }
      latestByTask.merge(
          event.taskId(), event, (a, b) -> a.finishedAtMs() >= b.finishedAtMs() ? a : b);
    }
    if (latestByTask.isEmpty()) {
      return;
    }
    Map<String, StoredTask> found =
        tasks.findAllOfType(latestByTask.keySet(), TriggerType.FIXED_DELAY);
    List<NewInstance> next = new ArrayList<>();
    Map<String, String> groups = new HashMap<>();
    for (TaskCompletedEvent event : latestByTask.values()) {
      StoredTask task = found.get(event.taskId());
      if (task == null || !(task.spec().trigger() instanceof Trigger.FixedDelay delay)) {
        continue;
      }
      if (!task.state().equals("ACTIVE")) {
        continue; // a cancelled task's chain ends with the run that was in flight
      }
      if (!firings.findScheduledOf(event.taskId()).isEmpty()) {
        continue; // the chain already has its next firing
      }
      long dueAtMs = FireTimes.afterRunEndedMs(delay, event.finishedAtMs());
      if (SaturatingMillis.isNever(dueAtMs)) {
        // Once per task: the parked instance below ends the chain, so no later event comes.
        log.warn(
            "Task {}: the next fixed-delay firing ({} ms after {}) lies beyond the year 9999; it is"
                + " parked there and never fires [traceId={}]",
            event.taskId(),
            SaturatingMillis.toMillis(delay.interval()),
            event.finishedAtMs(),
            event.traceId());
      }
      String instanceId = InstanceIds.of(event.taskId(), dueAtMs);
      next.add(
          new NewInstance(
              instanceId,
              event.taskId(),
              task.version(),
              dueAtMs,
              TraceIds.forRun(task.traceId(), instanceId),
              "next firing (fixed delay)"));
      groups.put(instanceId, TriggerGroups.keyOf(delay));
    }
    Map<String, Long> created = instances.create(next, actor, clock.millis());
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    for (NewInstance instance : next) {
      Long seq = created.get(instance.instanceId());
      if (seq == null) {
        continue;
      }
      // The same record as ingest's, trace header included.
      sends.add(
          producer.send(
              AnnouncementRecords.of(
                  scheduledTopic, instance, seq, groups.get(instance.instanceId()))));
    }
    for (Future<RecordMetadata> send : sends) {
      send.get();
    }
  }
}
