package dev.ax.ticker.reaper;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.contract.TaskDeadEvent;
import dev.ax.common.kafka.Topics;
import dev.ax.common.kafka.TraceHeaders;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.store.AfterFailure;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.OutboxStore;
import dev.ax.common.store.Outcome;
import dev.ax.common.store.StoredTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The events a dispatcher owes for a failure that ends its instance DEAD, owed by the reaper for a
 * run it ended instead of taking it back once more (its dispatcher died, and the instance was taken
 * back {@code AX_MAX_TAKEBACKS} times): the completion on {@code ax.task.completed} (FAILED,
 * instance DEAD, so the FIXED_DELAY chainer goes on) and the dead instance on {@code
 * ax.task.deadletter} (the dead-letter stage stores its letter with the reason and alerts).
 *
 * <p>Like a dispatcher's, they are written to the outbox in the transaction that ends the run (see
 * {@link ReaperStore#endExpiredRuns}); {@link #send} sends them after the commit and deletes them
 * once the broker has them. If this ticker dies first, or the broker is away, any dispatcher's
 * outbox relay sends them after {@code AX_OUTBOX_RELAY_AFTER}. Used from the reaper's thread.
 */
public final class EndedRunEmitter {

  private static final Logger log = LoggerFactory.getLogger(EndedRunEmitter.class);

  /** How long {@link #send} waits for the broker before it leaves the rows to the relay. */
  private static final Duration ACK_WAIT = Duration.ofSeconds(5);

  private final KafkaProducer<String, byte[]> producer;
  private final Topics topics;
  private final OutboxStore outbox;

  public EndedRunEmitter(
      KafkaProducer<String, byte[]> producer, Topics topics, OutboxStore outbox) {
    this.producer = producer;
    this.topics = topics;
    this.outbox = outbox;
  }

  /**
   * The records the ended run owes, in the order they are sent.
   *
   * @param run the row as the reaper read it
   * @param outcome the FAILED outcome to record, with its {@link AfterFailure.Dead} reason
   * @param task the task as stored, or null when it is missing
   */
  List<OutboxMessage> eventsOwed(
      ReaperStore.ExpiredRun run, Outcome outcome, StoredTask task, long nowMs) {
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
            spec == null ? null : spec.trigger().type(),
            null);
    Map<String, String> traced =
        TraceHeaders.of(run.traceId(), "completed:" + run.instanceId() + '#' + run.attempt());
    OutboxMessage completion = OutboxMessage.completion(topics, completed, traced);
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
    return List.of(
        completion,
        new OutboxMessage(topics.deadletter(), run.taskId(), AxJson.write(dead), traced));
  }

  /**
   * Sends what was committed to the outbox under {@code token}, waits for the broker (at most
   * {@link #ACK_WAIT}) and deletes the rows; anything short of that leaves them to the relay.
   */
  public void send(String token, List<OutboxMessage> owed) {
    if (owed.isEmpty()) {
      return;
    }
    try {
      List<Future<RecordMetadata>> sent = new ArrayList<>(owed.size());
      for (OutboxMessage message : owed) {
        sent.add(producer.send(message.toRecord()));
      }
      long deadlineNs = System.nanoTime() + ACK_WAIT.toNanos();
      for (Future<RecordMetadata> future : sent) {
        future.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
      outbox.deleteBatches(List.of(token)); // a StoreException: the relay sends them once more
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      log.warn(
          "{} event(s) of runs the reaper ended not confirmed now; the outbox relays them: {}",
          owed.size(),
          e.toString());
    }
  }
}
