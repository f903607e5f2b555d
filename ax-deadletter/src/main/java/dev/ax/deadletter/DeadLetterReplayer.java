package dev.ax.deadletter;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.kafka.DueRecords;
import dev.ax.common.kafka.Topics;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Replays a dead letter: the store moves the instance DEAD → DISPATCHED with a fresh retry budget
 * and marks the letter REPLAYED (both conditional, so a second replay of one letter runs nothing),
 * or holds it PAUSED or refuses, by its task's state; a DISPATCHED instance is then emitted on
 * {@code ax.task.due.retry}, where it runs in the dispatchers' retry pool. If the emit is lost, the
 * ticker's reaper emits it again. Thread-safe.
 */
public final class DeadLetterReplayer {

  private final DeadLetterStore letters;
  private final InstanceStore instances;
  private final KafkaProducer<String, byte[]> producer;
  private final Topics topics;

  public DeadLetterReplayer(
      DeadLetterStore letters,
      InstanceStore instances,
      KafkaProducer<String, byte[]> producer,
      Topics topics) {
    this.letters = letters;
    this.instances = instances;
    this.producer = producer;
    this.topics = topics;
  }

  /** {@link #replay(long, String, String, long, boolean)}, not forced. */
  public DeadLetterStore.ReplayResult replay(long id, String actor, String reason, long nowMs)
      throws InterruptedException {
    return replay(id, actor, reason, nowMs, false);
  }

  /**
   * Replays the letter as {@link DeadLetterStore#replay(long, String, String, long, boolean)}
   * decides by its task's state, and emits the instance only when it is DISPATCHED again (a paused
   * task's instance waits PAUSED for its RESUME; a refused one runs nothing).
   *
   * @param actor who replays (recorded in the audit log)
   * @param reason why (recorded with the letter and in the audit log)
   * @param force replay even when the task is CANCELLED or DELETED
   */
  public DeadLetterStore.ReplayResult replay(
      long id, String actor, String reason, long nowMs, boolean force) throws InterruptedException {
    DeadLetterStore.ReplayResult result = letters.replay(id, actor, reason, nowMs, force);
    if (result != DeadLetterStore.ReplayResult.REPLAYED) {
      return result;
    }
    DeadLetterStore.DeadLetter letter = letters.find(id).orElseThrow();
    InstanceRow row = instances.find(letter.instanceId()).orElseThrow();
    TaskDueEvent event =
        new TaskDueEvent(
            AxJson.VERSION,
            row.taskId(),
            row.instanceId(),
            row.dueAtMs(),
            0,
            nowMs,
            row.traceId(),
            letter.group(),
            // No copy of the row: the dispatcher reads the replayed row when it claims.
            null,
            null,
            null,
            null,
            null);
    try {
      producer.send(DueRecords.of(topics.dueRetry(), event)).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // Replayed in the database; the reaper emits it once its unclaimed bound passes.
    }
    return result;
  }
}
