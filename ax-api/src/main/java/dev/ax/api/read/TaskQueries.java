package dev.ax.api.read;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.Namespace;
import dev.ax.common.model.TaskState;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.RecordRows;
import dev.ax.common.store.Sql;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Read-only SQL over tasks, shared by the CLI and the HTTP API: a filtered, paged list of {@code
 * ax_task} with the status of each task's latest instance, a bounded count of the same list, and
 * the lifecycle commands applied to one task ({@code ax_task_command}). Reads only; thread-safe
 * (stateless over a pool).
 */
public final class TaskQueries {

  /** One task as {@code ax task list} and {@code GET /api/v1/tasks} show it. */
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
   * tasks out); {@code text} matches a part of the task id, literally; tasks come in task id order,
   * after {@code afterTaskId} (the last id of the previous page) when given.
   */
  public record Filter(
      String group,
      String state,
      String triggerType,
      String lastStatus,
      String text,
      String afterTaskId,
      Namespace namespace) {

    /** A filter over every namespace (the CLI's on the database, with stored ids). */
    public Filter(
        String group,
        String state,
        String triggerType,
        String lastStatus,
        String text,
        String afterTaskId) {
      this(group, state, triggerType, lastStatus, text, afterTaskId, null);
    }

    /** The same filter from the first page on (what a total counts). */
    Filter fromStart() {
      return new Filter(group, state, triggerType, lastStatus, text, null, namespace);
    }
  }

  /** Rows of the list query, which selects {@link TaskSummary}'s components in their order. */
  private static final RecordRows<TaskSummary> SUMMARIES = RecordRows.of(TaskSummary.class);

  private static final RecordRows<AppliedCommand> COMMANDS = RecordRows.of(AppliedCommand.class);

  /** The commands applied to one task, in {@link AppliedCommand}'s component order. */
  private static final String COMMANDS_OF_TASK =
      "SELECT command_id, command_type, reason, applied_by, applied_at_ms FROM ax_task_command"
          + " WHERE task_id = ? ORDER BY applied_at_ms, command_id";

  /** The latest instance of each task, by its (task_id, due_at_ms) index. */
  private static final String LAST =
      "(SELECT i.%s FROM ax_instance i WHERE i.task_id = t.task_id"
          + " ORDER BY i.due_at_ms DESC LIMIT 1)";

  private final Jdbc jdbc;

  public TaskQueries(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /** Up to {@code limit} tasks matching {@code filter}, by task id. */
  public List<TaskSummary> list(Filter filter, int limit) {
    List<Object> bound = new ArrayList<>();
    String sql = "SELECT * FROM " + listed(filter, bound) + " ORDER BY listed.task_id LIMIT ?";
    bound.add(limit);
    return jdbc.query("listing tasks", sql, values(bound.toArray()), SUMMARIES);
  }

  /**
   * How many tasks match {@code filter} from its first page on, counted up to {@code cap} only: a
   * total over millions of tasks would read them all, so a result of {@code cap} means "at least".
   */
  public long count(Filter filter, long cap) {
    List<Object> bound = new ArrayList<>();
    String sql = "SELECT COUNT(*) FROM (SELECT 1 FROM " + listed(filter.fromStart(), bound);
    sql += " LIMIT ?) capped";
    bound.add(cap);
    return jdbc.queryLong("counting tasks", sql, values(bound.toArray()));
  }

  /** The lifecycle commands applied to {@code taskId}, oldest first. */
  public List<AppliedCommand> commands(String taskId) {
    return jdbc.query(
        "reading the commands applied to " + taskId, COMMANDS_OF_TASK, values(taskId), COMMANDS);
  }

  /** The derived table {@code listed} of the tasks {@code filter} matches; binds into bound. */
  private static String listed(Filter filter, List<Object> bound) {
    StringBuilder where = new StringBuilder(" WHERE 1 = 1");
    if (filter.namespace() != null) {
      // Stored ids: a namespace's are "<ns>~<id>" (an index range); the default one's hold no ~.
      if (filter.namespace().isDefault()) {
        where.append(" AND t.task_id NOT LIKE '%~%'");
      } else {
        condition(where, bound, "t.task_id LIKE ?", filter.namespace().qualify("%"));
      }
    }
    condition(where, bound, "t.task_group = ?", filter.group());
    condition(where, bound, "t.state = ?", filter.state());
    if (filter.state() == null) {
      // DELETED: gone for every purpose but show and history.
      where.append(" AND t.state <> ").append(Sql.literals(TaskState.DELETED));
    }
    condition(where, bound, "t.trigger_type = ?", filter.triggerType());
    condition(
        where,
        bound,
        "t.task_id LIKE ? ESCAPE '!'",
        filter.text() == null ? null : "%" + likeLiteral(filter.text()) + "%");
    condition(where, bound, "t.task_id > ?", filter.afterTaskId());
    String table =
        "(SELECT t.task_id, t.task_group, t.trigger_type, t.state, t.version, t.updated_at_ms, "
            + LAST.formatted("status")
            + " AS last_status, "
            + LAST.formatted("due_at_ms")
            + " AS last_due_at_ms FROM ax_task t"
            + where
            + ") listed";
    if (filter.lastStatus() != null) {
      bound.add(filter.lastStatus());
      return table + " WHERE listed.last_status = ?";
    }
    return table;
  }

  /** {@code text} as a LIKE pattern that matches it literally ({@code !} escapes). */
  static String likeLiteral(String text) {
    return text.replace("!", "!!").replace("%", "!%").replace("_", "!_");
  }

  private static void condition(
      StringBuilder where, List<Object> bound, String condition, String value) {
    if (value != null) {
      where.append(" AND ").append(condition);
      bound.add(value);
    }
  }
}
