package dev.ax.common.store;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * An instance waiting to fire, or fired and waiting for its claim: only what the ticker and a claim
 * need, never the task details. Besides the wheel's key and the due time it carries the row's
 * attempt columns as they were read, so that a claim finding them unchanged need not read the row
 * back (see {@link InstanceStore#claim(java.util.Collection, java.util.Map, String, long, long)}).
 *
 * @param seq the row's compact numeric key, what the time wheel holds
 * @param taskVersion the version of the task spec the instance belongs to (0 when unknown)
 * @param attempt attempts started so far (0 before the first claim)
 * @param retryBase the attempt count at which its current retry budget began (0, or the attempt of
 *     a dead letter's replay)
 * @param flowRunId the flow run the instance belongs to as stored (null: its own id)
 */
public record DueInstance(
    String instanceId,
    String taskId,
    long dueAtMs,
    String traceId,
    long seq,
    int taskVersion,
    int attempt,
    int retryBase,
    String flowRunId) {

  /** The {@code ax_instance} columns {@link #read} reads: the record's components, in order. */
  public static final String COLUMNS =
      "instance_id, task_id, due_at_ms, trace_id, seq, task_version, attempt, retry_base,"
          + " flow_run_id";

  private static final RecordRows<DueInstance> ROWS = RecordRows.of(DueInstance.class);

  /** The instance in the current row of {@code rs}, selected as {@link #COLUMNS}. */
  public static DueInstance read(ResultSet rs) throws SQLException {
    return ROWS.map(rs);
  }

  /** A first-attempt instance of no flow run: attempt and retry base 0. */
  public DueInstance(
      String instanceId, String taskId, long dueAtMs, String traceId, long seq, int taskVersion) {
    this(instanceId, taskId, dueAtMs, traceId, seq, taskVersion, 0, 0, null);
  }
}
