package dev.ax.ticker.fire;

import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.AnnouncementRecords;
import dev.ax.common.kafka.EventDecoder;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.Namespace;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerGroups;
import dev.ax.common.model.TriggerType;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.schedule.Jitter;
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
 * second one, so one chain per task; the end of an instance that is no link of the chain (RUN_NOW's
 * extra run) chains nothing. The task's state is read under its lock in the transaction that
 * creates the firing ({@link FiringStore#chainFixedDelay}): a cancelled or deleted task's chain
 * ends with the run that was in flight; a paused task's next firing is created PAUSED and fires
 * after its RESUME.
 *
 * <p>Threading: called from one consumer thread ({@code ConsumerLoop}).
 *
 * @param completions reads the completion events (and counts the unreadable ones)
 * @param producer the ticker's own; not closed here
 * @param scheduledTopic where the next firings are announced ({@code ax.task.scheduled})
 * @param actor who creates them (the node id), recorded in their audit rows
 * @param namespaceOf the namespace whose completion events a topic holds ({@code
 *     Topics#namespaceOfCompleted}): an event's task id is qualified with its topic's namespace,
 *     never one the message names
 */
public record FixedDelayChainer(
    EventDecoder<TaskCompletedEvent> completions,
    TaskStore tasks,
    FiringStore firings,
    KafkaProducer<String, byte[]> producer,
    String scheduledTopic,
    String actor,
    Clock clock,
    java.util.function.Function<String, Optional<Namespace>> namespaceOf) {

  private static final Logger log = LoggerFactory.getLogger(FixedDelayChainer.class);

  /** False when the record's trigger-type header names another type: no need to parse it. */
  private static boolean mayBeFixedDelay(ConsumerRecord<String, byte[]> record) {
    Header header = record.headers().lastHeader(RejectHeaders.TRIGGER_TYPE);
    return header == null
        || header.value() == null
        || TriggerType.FIXED_DELAY
            .name()
            .equals(new String(header.value(), StandardCharsets.UTF_8));
  }

  public void handle(ConsumerRecords<String, byte[]> records) throws Exception {
    Map<String, TaskCompletedEvent> latestByTask = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      if (!mayBeFixedDelay(record)) {
        continue;
      }
      Optional<TaskCompletedEvent> decoded = completions.decode(record);
      Optional<Namespace> namespace = namespaceOf.apply(record.topic());
      if (decoded.isEmpty()
          || namespace.isEmpty()
          || decoded.get().taskId().indexOf(Namespace.SEPARATOR) >= 0) {
        continue; // a task id as a namespace's users write it never holds one
      }
      TaskCompletedEvent event = decoded.get().storedIn(namespace.get());
      if (event.instanceStatus() == InstanceStatus.RETRYING) {
        continue; // the run is not over: the next firing counts from its last attempt
      }
      if (event.triggerType() != null && event.triggerType() != TriggerType.FIXED_DELAY) {
        continue; // not a chain: no need to look the task up
      }
      if (!InstanceIds.isSlotId(event.instanceId())
          || !event.instanceId().startsWith(event.taskId() + "@")) {
        // RUN_NOW's (or a flow's) extra run: no link of the chain, it extends nothing; nor does an
        // event whose instance is not its task's
        continue;
      }
      latestByTask.merge(
          event.taskId(), event, (a, b) -> a.finishedAtMs() >= b.finishedAtMs() ? a : b);
    }
    if (latestByTask.isEmpty()) {
      return;
    }
    Map<String, StoredTask> found = new HashMap<>();
    tasks
        .findAllOfType(latestByTask.keySet(), TriggerType.FIXED_DELAY)
        .forEach(
            (taskId, task) -> {
              // Neither comes back: no need to lock the task to know its chain ended.
              if (!task.state().isStopped()) {
                found.put(taskId, task);
              }
            });
    Map<String, String> groups = new HashMap<>();
    FiringStore.Chained chained =
        firings.chainFixedDelay(
            found,
            (taskId, spec, version) -> {
              TaskCompletedEvent event = latestByTask.get(taskId);
              if (!(spec.trigger() instanceof Trigger.FixedDelay delay)) {
                return Optional.empty(); // updated to another trigger meanwhile
              }
              Optional<NewInstance> next =
                  nextFiring(event, spec, delay, version, found.get(taskId).traceId());
              next.ifPresent(n -> groups.put(n.instanceId(), TriggerGroups.keyOf(delay)));
              return next;
            },
            actor,
            clock.millis());
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    for (NewInstance instance : chained.scheduled()) {
      Long seq = chained.seqByInstanceId().get(instance.instanceId());
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

  /** The firing due {@code delay} after the run of {@code event} ended, of spec {@code version}. */
  private static Optional<NewInstance> nextFiring(
      TaskCompletedEvent event,
      TaskSpec spec,
      Trigger.FixedDelay delay,
      int version,
      String taskTraceId) {
    long dueAtMs = FireTimes.afterRunEndedMs(delay, event.finishedAtMs());
    if (FireTimes.isAfterEnd(delay, dueAtMs)) {
      log.info(
          "Task {}: its fixed-delay schedule ended at endAt {}; no next firing",
          event.taskId(),
          delay.endAt());
      return Optional.empty();
    }
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
    return Optional.of(
        new NewInstance(
            instanceId,
            event.taskId(),
            version,
            Jitter.dueAtMs(spec, dueAtMs),
            TraceIds.forRun(taskTraceId, instanceId),
            "next firing (fixed delay)",
            null,
            false));
  }
}
