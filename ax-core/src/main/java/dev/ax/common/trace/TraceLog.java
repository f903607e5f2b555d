package dev.ax.common.trace;

import java.util.List;
import java.util.function.Function;
import org.slf4j.MDC;

/**
 * The trace fields of the log lines about one task or instance, as SLF4J MDC entries: {@code
 * traceId}, {@code taskId}, {@code instanceId} (and {@code taskTraceId}, the task's own trace, on a
 * periodic task's run). Opened around the work and closed after it, on the thread that logs; the
 * fields this scope set are removed on close, and what the thread had before is put back.
 *
 * <p>Not thread-safe: a scope belongs to the thread that opened it (MDC is per thread).
 */
public final class TraceLog implements AutoCloseable {

  public static final String TRACE_ID = "traceId";
  public static final String TASK_ID = "taskId";
  public static final String INSTANCE_ID = "instanceId";
  public static final String TASK_TRACE_ID = "taskTraceId";

  private static final String[] KEYS = {TRACE_ID, TASK_ID, INSTANCE_ID, TASK_TRACE_ID};

  private final String[] before = new String[KEYS.length];

  private TraceLog(String traceId, String taskId, String instanceId, String taskTraceId) {
    String[] values = {traceId, taskId, instanceId, taskTraceId};
    for (int i = 0; i < KEYS.length; i++) {
      before[i] = MDC.get(KEYS[i]);
      put(KEYS[i], values[i]);
    }
  }

  /** The fields of log lines about a task (no instance yet: ingest). */
  public static TraceLog ofTask(String traceId, String taskId) {
    return new TraceLog(traceId, taskId, null, null);
  }

  /** The fields of log lines about one instance. */
  public static TraceLog ofInstance(String traceId, String taskId, String instanceId) {
    return new TraceLog(traceId, taskId, instanceId, null);
  }

  /**
   * The fields of log lines about one run, with its task's trace when the run has its own (a
   * periodic task's run).
   */
  public static TraceLog ofRun(
      String traceId, String taskId, String instanceId, String taskTraceId) {
    return new TraceLog(
        traceId,
        taskId,
        instanceId,
        traceId != null && traceId.equals(taskTraceId) ? null : taskTraceId);
  }

  /**
   * The ids a batch log line names: the first {@code limit} instances as {@code
   * instanceId[traceId]}, then how many more, so a batch's line stays short whatever its size.
   */
  public static <T> String firstIds(
      List<T> batch, Function<T, String> instanceId, Function<T, String> traceId, int limit) {
    StringBuilder ids = new StringBuilder();
    for (int i = 0; i < Math.min(limit, batch.size()); i++) {
      T item = batch.get(i);
      if (i > 0) {
        ids.append(", ");
      }
      ids.append(instanceId.apply(item)).append('[').append(traceId.apply(item)).append(']');
    }
    if (batch.size() > limit) {
      ids.append(" and ").append(batch.size() - limit).append(" more");
    }
    return ids.toString();
  }

  @Override
  public void close() {
    for (int i = 0; i < KEYS.length; i++) {
      put(KEYS[i], before[i]);
    }
  }

  private static void put(String key, String value) {
    if (value == null) {
      MDC.remove(key);
    } else {
      MDC.put(key, value);
    }
  }
}
