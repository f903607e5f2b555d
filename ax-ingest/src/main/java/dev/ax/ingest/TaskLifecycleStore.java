package dev.ax.ingest;

import static dev.ax.common.model.InstanceStatus.CANCELLED;
import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.JdbcTransaction;
import dev.ax.common.store.Sql;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Ingest's SQL for the commands that change an existing task. Each command applies in one
 * transaction: the task's row is locked, the command's id is checked against {@code
 * ax_task_command} (a command applied before changes nothing), the task's state moves, its pending
 * instances move with their audit rows ({@link BatchMove}), and the command's id is recorded.
 *
 * <p>Why a concurrent firing cannot leave a cancelled task with a live instance: the pending
 * instances are read with {@code FOR UPDATE} on the {@code (task_id, due_at_ms)} index, a locking
 * read of the latest committed rows that also locks the gaps of the task's range. A firing that
 * committed before it left its successor in the range, and it is read and cancelled; a firing after
 * it finds its instance CANCELLED, moves nothing and so creates no successor (the ticker creates
 * successors only for rows it moved).
 *
 * <p>Thread-safe (stateless over a pool).
 */
final class TaskLifecycleStore {

  /** The instance statuses a CANCEL ends: everything not yet running. */
  static final List<InstanceStatus> PENDING =
      List.of(InstanceStatus.SCHEDULED, InstanceStatus.DISPATCHED, InstanceStatus.RETRYING);

  /** What a command came to. */
  sealed interface Result {
    /** Applied: the task moved, and {@code instances} pending instances with it. */
    record Applied(int instances) implements Result {}

    /** Applied before (its id is recorded): nothing changed this time. */
    record Duplicate() implements Result {}

    /** Not applicable to the task as it is (unknown, or cancelled already): nothing changed. */
    record Refused(String reason) implements Result {}
  }

  /** One lifecycle command to apply. */
  record Request(
      String commandId, String taskId, String reason, String traceId, String actor, long nowMs) {}

  private final Jdbc jdbc;

  TaskLifecycleStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * CANCEL: the task fires no more (state CANCELLED) and its SCHEDULED, DISPATCHED and RETRYING
   * instances become CANCELLED, each with an audit row giving the command and its reason. A RUNNING
   * attempt is left to finish.
   */
  Result cancel(Request request) {
    return jdbc.inPacketTransaction(
        "cancelling task " + request.taskId(),
        tx -> {
          JdbcTransaction statements = tx.statements();
          Optional<String> state =
              statements.queryFirst(
                  "SELECT state FROM ax_task WHERE task_id = ? FOR UPDATE",
                  values(request.taskId()),
                  rs -> rs.getString(1));
          if (state.isEmpty()) {
            return new Result.Refused("CANCEL for unknown task " + request.taskId());
          }
          if (isRecorded(statements, request.taskId(), request.commandId())) {
            return new Result.Duplicate();
          }
          if (state.get().equals("CANCELLED")) {
            return new Result.Refused("task " + request.taskId() + " is cancelled already");
          }
          statements.update(
              "UPDATE ax_task SET state = 'CANCELLED', updated_at_ms = ? WHERE task_id = ?",
              values(request.nowMs(), request.taskId()));
          int cancelled = 0;
          String auditReason = Sql.truncate(auditReason(request), 512);
          for (Map.Entry<InstanceStatus, List<String>> pending :
              pendingInstances(statements, request.taskId()).entrySet()) {
            BatchMove<String> move =
                BatchMove.from(pending.getKey())
                    .<String>to(CANCELLED)
                    .set("last_error = ?", auditReason)
                    .readBack("instance_id", rs -> rs.getString(1))
                    .audit(request.actor(), auditReason);
            cancelled +=
                tx.move("instance_id", pending.getValue(), move, request.nowMs(), false).size();
          }
          record(statements, request, "CANCEL");
          return new Result.Applied(cancelled);
        });
  }

  private static boolean isRecorded(JdbcTransaction statements, String taskId, String commandId)
      throws SQLException {
    return statements
        .queryFirst(
            "SELECT 1 FROM ax_task_command WHERE task_id = ? AND command_id = ?",
            values(taskId, commandId),
            rs -> rs.getInt(1))
        .isPresent();
  }

  /** The task's instances not yet running, by status, locked (see the class comment). */
  private static Map<InstanceStatus, List<String>> pendingInstances(
      JdbcTransaction statements, String taskId) throws SQLException {
    Map<InstanceStatus, List<String>> byStatus = new EnumMap<>(InstanceStatus.class);
    statements
        .query(
            "SELECT instance_id, status FROM ax_instance WHERE task_id = ? AND status IN (?, ?, ?)"
                + " FOR UPDATE",
            values(taskId, PENDING.get(0).name(), PENDING.get(1).name(), PENDING.get(2).name()),
            rs -> Map.entry(rs.getString(1), InstanceStatus.valueOf(rs.getString(2))))
        .forEach(
            row ->
                byStatus.computeIfAbsent(row.getValue(), s -> new ArrayList<>()).add(row.getKey()));
    return byStatus;
  }

  private static void record(JdbcTransaction statements, Request request, String type)
      throws SQLException {
    statements.update(
        "INSERT INTO ax_task_command (command_id, task_id, command_type, reason, trace_id,"
            + " applied_by, applied_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
        values(
            request.commandId(),
            request.taskId(),
            type,
            request.reason() == null ? null : Sql.truncate(request.reason(), 512),
            request.traceId(),
            request.actor(),
            request.nowMs()));
  }

  private static String auditReason(Request request) {
    return "cancelled by command "
        + request.commandId()
        + (request.reason() == null ? "" : ": " + request.reason());
  }
}
