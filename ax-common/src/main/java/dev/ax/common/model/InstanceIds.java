package dev.ax.common.model;

/**
 * Instance ids are deterministic: {@code taskId@fireTimeMillis}, so two tickers that fire the same
 * slot produce the same id and the database keeps one row.
 */
public final class InstanceIds {

  private InstanceIds() {}

  public static String of(String taskId, long fireTimeMs) {
    return taskId + "@" + fireTimeMs;
  }

  /** The idempotency key executors receive for one attempt of one instance. */
  public static String idempotencyKey(String instanceId, int attempt) {
    return instanceId + ":" + attempt;
  }
}
