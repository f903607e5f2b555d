package dev.ax.ingest;

import dev.ax.common.contract.TaskCommand;
import dev.ax.common.store.CreateResult;
import dev.ax.common.store.NewTask;
import dev.ax.ingest.CreatePlan.Announcement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Everything the {@link IngestLoop} does against the database and the broker, behind one small
 * interface: the stage wires the real one ({@link StoreIngestPort}); unit tests use an in-memory
 * one. Called from the consumer thread only. A send returns its future: the loop awaits every one
 * before the batch's offsets move.
 */
interface IngestPort {

  /** What a batch of TRIGGER commands produced. */
  record Triggered(
      List<Future<RecordMetadata>> announcements,
      Map<TaskCommand, String> rejections,
      int duplicates) {}

  /**
   * Why a DEPENDENCY task cannot be accepted (an upstream unknown, a cycle), or null when it can.
   *
   * @param acceptedInBatch task ids accepted earlier in the same batch (they exist once it commits)
   */
  String dependencyRejection(TaskCommand create, Set<String> acceptedInBatch);

  /** The reason, by index into {@code creates}, of each CREATE over its group's live-task limit. */
  Map<Integer, String> overLimit(List<TaskCommand> creates);

  /** Inserts the tasks with their first instances in one transaction; idempotent on taskId. */
  CreateResult create(List<NewTask> tasks, long nowMs);

  /** Announces a first instance on {@code ax.task.scheduled}. */
  Future<RecordMetadata> announce(Announcement announcement);

  /** Publishes the graph entries of every upstream these DEPENDENCY tasks wait for. */
  List<Future<RecordMetadata>> publishGraph(List<NewTask> dependencyTasks);

  /** Creates (and announces) the instances these TRIGGER commands ask for. */
  Triggered trigger(List<TaskCommand> triggers, long nowMs);

  /**
   * Applies a lifecycle command (UPDATE, CANCEL, DELETE, PAUSE, RESUME, RUN_NOW) in its own
   * transaction; its announcements go into {@code sends}.
   *
   * @return the reason to reject it with, or empty when it applied (or had applied before)
   */
  Optional<String> applyLifecycle(
      ConsumerRecord<String, byte[]> record,
      TaskCommand command,
      List<Future<RecordMetadata>> sends)
      throws InterruptedException, ExecutionException;

  /** Sends {@code record} to the rejected topic with {@code reason}. */
  Future<RecordMetadata> reject(ConsumerRecord<String, byte[]> record, String reason);
}
