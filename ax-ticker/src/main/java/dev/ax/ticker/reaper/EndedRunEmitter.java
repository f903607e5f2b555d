package dev.ax.ticker.reaper;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.contract.TaskDeadEvent;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.store.AfterFailure;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.Outcome;
import dev.ax.common.store.StoredTask;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a dispatcher emits for a failure that ends its instance DEAD, sent by the reaper for a run
 * it ended instead of taking it back once more (its dispatcher died, and the instance was taken
 * back {@code AX_MAX_TAKEBACKS} times): the completion on {@code ax.task.completed} (FAILED,
 * instance DEAD, so the FIXED_DELAY chainer goes on) and the dead instance on {@code
 * ax.task.deadletter} (the dead-letter stage stores its letter with the reason and alerts). Both
 * are notifications: the row is DEAD already, and the dead-letter stage's sweep finds it without
 * the event. Thread-safe (the producer is).
 */
public final class EndedRunEmitter {

  private static final Logger log = LoggerFactory.getLogger(EndedRunEmitter.class);

  private final KafkaProducer<String, byte[]> producer;
  private final Topics topics;

  public EndedRunEmitter(KafkaProducer<String, byte[]> producer, Topics topics) {
    this.producer = producer;
    this.topics = topics;
  }

  /**
   * @param run the row as the reaper read it
   * @param outcome the FAILED outcome recorded, with its {@link AfterFailure.Dead} reason
   * @param task the task as stored, or null when it is missing
   */
  public void emit(InstanceStore.ExpiredRun run, Outcome outcome, StoredTask task, long nowMs) {
    TaskSpec spec = task == null ? null : task.spec();
    TaskCompletedEvent completed =
        new TaskCompletedEvent(
            AxJson.VERSION,
            run.taskId(),
            run.instanceId(),
            run.attempt(),
            outcome.status(),
            run.dueAtMs(),
            run.claimedAtMs(),
            run.claimedAtMs(),
            outcome.finishedAtMs(),
            outcome.finishedAtMs() - run.claimedAtMs(),
            run.claimedAtMs() - run.dueAtMs(),
            run.traceId(),
            outcome.error(),
            run.owner(),
            InstanceStatus.DEAD,
            run.flowRunId(),
            spec == null ? null : spec.trigger().type());
    ProducerRecord<String, byte[]> completion =
        record(topics.completed(), run, AxJson.write(completed));
    if (completed.triggerType() != null) {
      completion
          .headers()
          .add(
              RejectHeaders.TRIGGER_TYPE,
              completed.triggerType().name().getBytes(StandardCharsets.UTF_8));
    }
    send(completion, run);
    TaskDeadEvent dead =
        new TaskDeadEvent(
            AxJson.VERSION,
            run.taskId(),
            run.instanceId(),
            run.attempt(),
            outcome.status(),
            outcome.error(),
            ((AfterFailure.Dead) outcome.after()).reason(),
            null,
            run.traceId(),
            spec == null ? null : spec.group(),
            nowMs);
    send(record(topics.deadletter(), run, AxJson.write(dead)), run);
  }

  private static ProducerRecord<String, byte[]> record(
      String topic, InstanceStore.ExpiredRun run, byte[] value) {
    ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, run.taskId(), value);
    record.headers().add(RejectHeaders.TRACE_ID, run.traceId().getBytes(StandardCharsets.UTF_8));
    return record;
  }

  private void send(ProducerRecord<String, byte[]> record, InstanceStore.ExpiredRun run) {
    producer.send(
        record,
        (metadata, error) -> {
          if (error != null) {
            log.warn(
                "Event on {} for {} not sent (the row is DEAD already) [traceId={}]: {}",
                record.topic(),
                run.instanceId(),
                run.traceId(),
                error.toString());
          }
        });
  }
}
