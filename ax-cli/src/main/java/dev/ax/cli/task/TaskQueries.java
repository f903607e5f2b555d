package dev.ax.cli.task;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.TaskState;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.RecordRows;
import dev.ax.common.store.Sql;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The CLI's own read-only SQL over tasks: a filtered, paged list of {@code ax_task} with the status
 * of each task's latest instance, and the lifecycle commands applied to one task ({@code
 * ax_task_command}). Reads only; thread-safe (stateless over a pool).
 */
public final class TaskQueries {

  /** One task as {@code ax task list} shows it. */
  public record TaskSummary(
      String taskId,
      String group,
      String triggerType,
      String state,
      int version,
      long updatedAtMs,
      String lastStatus,
      Long lastDueAtMs) {}

  /** One applied lifecycle command. */
  public record AppliedCommand(
      String commandId, String type, String reason, String appliedBy, long appliedAtMs) {}

  /**
   * What to list: each null filter matches everything (but a null {@code state} leaves DELETED
   * tasks out); tasks come in task id order, after {@code afterTaskId} (the last id of the previous
   * page) when given.
   */
  public record Filter(
      String group, String state, String triggerType, String lastStatus, String afterTaskId) {}

  /** Rows of the list query, which selects {@link TaskSummary}'s components in their order. */
  private static final RecordRows<TaskSummary> SUMMARIES = RecordRows.of(TaskSummary.class);

  private static final RecordRows<AppliedCommand> COMMANDS = RecordRows.of(AppliedCommand.class);

  /** The commands applied to one task, in {@link AppliedCommand}'s component order. */
  private static final String COMMANDS_OF_TASK =
      "SELECT command_id, command_type, reason, applied_by, applied_at_ms FROM ax_task_command"
          + " WHERE task_id = ? ORDER BY applied_at_ms, command_id";

  private final Jdbc jdbc;

  public TaskQueries(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /** Up to {@code limit} tasks matching {@code filter}, by task id. */
  public List<TaskSummary> list(Filter filter, int limit) {
    StringBuilder where = new StringBuilder(" WHERE 1 = 1");
    List<Object> bound = new ArrayList<>();
    condition(where, bound, "t.task_group = ?", filter.group());
    condition(where, bound, "t.state = ?", filter.state());
    if (filter.state() == null) {
      // DELETED: gone for every purpose but show and history.
      where.append(" AND t.state <> ").append(Sql.literals(TaskState.DELETED));
    }
    condition(where, bound, "t.trigger_type = ?", filter.triggerType());
    condition(where, bound, "t.task_id > ?", filter.afterTaskId());
    // The latest instance of each task by its (task_id, due_at_ms) index.
    String last =
        "(SELECT i.%s FROM ax_instance i WHERE i.task_id = t.task_id"
            + " ORDER BY i.due_at_ms DESC LIMIT 1)";
    String sql =
        "SELECT * FROM (SELECT t.task_id, t.task_group, t.trigger_type, t.state, t.version,"
            + " t.updated_at_ms, "
            + last.formatted("status")
            + " AS last_status, "
            + last.formatted("due_at_ms")
            + " AS last_due_at_ms FROM ax_task t"
            + where
            + ") listed"
            + (filter.lastStatus() == null ? "" : " WHERE listed.last_status = ?")
            + " ORDER BY listed.task_id LIMIT ?";
    if (filter.lastStatus() != null) {
      bound.add(filter.lastStatus());
    }
    bound.add(limit);
    return jdbc.query("listing tasks", sql, values(bound.toArray()), SUMMARIES);
  }

  /** The lifecycle commands applied to {@code taskId}, oldest first. */
  public List<AppliedCommand> commands(String taskId) {
    return jdbc.query(
        "reading the commands applied to " + taskId, COMMANDS_OF_TASK, values(taskId), COMMANDS);
  }

  private static void condition(
      StringBuilder where, List<Object> bound, String condition, String value) {
    if (value != null) {
      where.append(" AND ").append(condition);
      bound.add(value);
    }
  }
}
