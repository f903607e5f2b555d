package dev.ax.dispatcher.store;

/** One attempt a dispatcher is running: what its lease renewal and its outcome are keyed by. */
public record RunKey(String instanceId, int attempt) {

  /**
   * {@code CASE instance_id WHEN ? THEN ? ... END} with {@code count} branches: each instance's own
   * value in one statement over an IN list. Not {@code (instance_id, attempt) IN (...)}: with the
   * primary key forced, MariaDB reads a row-value IN list by scanning the whole key, while the key
   * list is a range and the attempt a filter.
   */
  static String caseByInstanceId(int count) {
    return "CASE instance_id" + " WHEN ? THEN ?".repeat(count) + " END";
  }
}
