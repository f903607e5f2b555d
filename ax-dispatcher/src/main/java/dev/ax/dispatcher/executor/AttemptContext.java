package dev.ax.dispatcher.executor;

import dev.ax.common.model.TaskSpec;
import dev.ax.common.trace.Traceparent;
import dev.ax.spi.ExecutionContext;
import java.time.Instant;
import java.util.Map;

/**
 * The dispatcher's {@link ExecutionContext}: the SPI's view of one attempt plus the whole task
 * spec, which the built-in executors read their settings from (the HTTP request, the script).
 *
 * @param traceId the run's trace
 * @param taskTraceId the task's own trace (differs from the run's for a periodic task's run); null:
 *     the run's
 * @param deadline when the attempt times out
 * @param shardIndex this run's shard, from 0 (0 when its task is not sharded)
 * @param shardTotal its firing's shards (1 when its task is not sharded)
 */
public record AttemptContext(
    TaskSpec task,
    String instanceId,
    int attempt,
    Instant dueAt,
    String traceId,
    String taskTraceId,
    Instant deadline,
    int shardIndex,
    int shardTotal)
    implements ExecutionContext {

  /** An attempt of a task that is not sharded. */
  public AttemptContext(
      TaskSpec task,
      String instanceId,
      int attempt,
      Instant dueAt,
      String traceId,
      String taskTraceId,
      Instant deadline) {
    this(task, instanceId, attempt, dueAt, traceId, taskTraceId, deadline, 0, 1);
  }

  /** An attempt of a run whose trace is its task's (tests, a one-shot task). */
  public AttemptContext(
      TaskSpec task,
      String instanceId,
      int attempt,
      Instant dueAt,
      String traceId,
      Instant deadline) {
    this(task, instanceId, attempt, dueAt, traceId, traceId, deadline, 0, 1);
  }

  /** A null {@code taskTraceId} is the run's own: the run's trace is its task's. */
  public AttemptContext {
    taskTraceId = taskTraceId == null ? traceId : taskTraceId;
  }

  @Override
  public String traceparent() {
    return traceId == null
        ? null
        : Traceparent.of(traceId, "attempt:" + instanceId + '#' + attempt).header();
  }

  @Override
  public String taskId() {
    return task.taskId();
  }

  @Override
  public String group() {
    return task.group();
  }

  @Override
  public Map<String, String> params() {
    return task.params();
  }

  /**
   * The attempt {@code context} is, for a built-in executor.
   *
   * @throws IllegalArgumentException if the dispatcher did not make it (a built-in executor called
   *     from elsewhere: a bug)
   */
  public static AttemptContext of(ExecutionContext context) {
    if (context instanceof AttemptContext attempt) {
      return attempt;
    }
    throw new IllegalArgumentException(
        "a built-in executor runs only the dispatcher's attempts, not a "
            + (context == null ? "null context" : context.getClass().getName()));
  }
}
