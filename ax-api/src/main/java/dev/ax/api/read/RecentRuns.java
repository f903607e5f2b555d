package dev.ax.api.read;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.Jdbc;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import javax.sql.DataSource;

/**
 * Per-task totals for a page of the task list (the console's runs, failures and duration columns):
 * over each task's latest {@value #WINDOW} instances, so that the cost is the page's size times a
 * constant, whatever the task's history (a second-level CRON task has millions of instances within
 * retention). One round trip: a UNION ALL of one index range per task. Thread-safe.
 */
public final class RecentRuns {

  /** How many of each task's latest instances the totals cover. */
  public static final int WINDOW = 100;

  /** Instance statuses that count as a failure: the run failed, for now or for good. */
  private static final Set<InstanceStatus> FAILED =
      EnumSet.of(
          InstanceStatus.FAILED,
          InstanceStatus.TIMEOUT,
          InstanceStatus.DEAD,
          InstanceStatus.RETRYING);

  /** Statuses of an instance whose run has ended. */
  private static final Set<InstanceStatus> ENDED =
      EnumSet.of(
          InstanceStatus.SUCCESS,
          InstanceStatus.FAILED,
          InstanceStatus.TIMEOUT,
          InstanceStatus.DEAD,
          InstanceStatus.RETRYING);

  /** Tasks per statement: a page of 1,000 is ten round trips of a bounded statement. */
  private static final int TASKS_PER_QUERY = 100;

  private static final String ONE_TASK =
      "(SELECT task_id, status, due_at_ms, claimed_at_ms, finished_at_ms FROM ax_instance"
          + " WHERE task_id = ?"
          + " ORDER BY due_at_ms DESC LIMIT "
          + WINDOW
          + ")";

  /**
   * The totals of one task over its latest instances.
   *
   * @param instances how many instances the window held (at most {@value #WINDOW})
   * @param runs how many of them ran to an end (success or failure)
   * @param failures how many of them failed (FAILED, TIMEOUT, DEAD, RETRYING)
   * @param lastDurationMs how long the latest ended run took, claim to finish; null when none
   * @param meanDurationMs the mean of the ended runs' durations; null when none
   */
  public record Totals(
      int instances, int runs, int failures, Long lastDurationMs, Long meanDurationMs) {

    /** As JSON, with the window it covers. */
    public ObjectNode toJson() {
      ObjectNode json =
          AxJson.MAPPER
              .createObjectNode()
              .put("window", WINDOW)
              .put("instances", instances)
              .put("runs", runs)
              .put("failures", failures);
      json.set("lastDurationMs", AxJson.MAPPER.valueToTree(lastDurationMs));
      json.set("meanDurationMs", AxJson.MAPPER.valueToTree(meanDurationMs));
      return json;
    }
  }

  /** One instance of the window. */
  record Row(String taskId, String status, long dueAtMs, Long claimedAtMs, Long finishedAtMs) {}

  private final Jdbc jdbc;

  public RecentRuns(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /** The totals of each of {@code taskIds} (a page: at most a few hundred), in their order. */
  public Map<String, Totals> of(List<String> taskIds) {
    Map<String, List<Row>> rows = new LinkedHashMap<>();
    taskIds.forEach(id -> rows.put(id, new ArrayList<>()));
    for (int from = 0; from < taskIds.size(); from += TASKS_PER_QUERY) {
      List<String> chunk = taskIds.subList(from, Math.min(taskIds.size(), from + TASKS_PER_QUERY));
      read(chunk).forEach(row -> rows.get(row.taskId()).add(row));
    }
    Map<String, Totals> totals = new LinkedHashMap<>();
    // A UNION ALL keeps no order of its own: each task's rows newest first, by due time.
    rows.forEach(
        (taskId, list) -> {
          list.sort(Comparator.comparingLong(Row::dueAtMs).reversed());
          totals.put(taskId, totalsOf(list));
        });
    return totals;
  }

  /** The latest rows of each of {@code taskIds}, each task's newest first. */
  private List<Row> read(List<String> taskIds) {
    StringJoiner sql = new StringJoiner(" UNION ALL ");
    taskIds.forEach(id -> sql.add(ONE_TASK));
    return jdbc.query(
        "reading the latest runs of " + taskIds.size() + " task(s)",
        sql.toString(),
        statement -> {
          for (int i = 0; i < taskIds.size(); i++) {
            statement.setString(i + 1, taskIds.get(i));
          }
        },
        rs ->
            new Row(
                rs.getString(1),
                rs.getString(2),
                rs.getLong(3),
                (Long) rs.getObject(4, Long.class),
                (Long) rs.getObject(5, Long.class)));
  }

  private static InstanceStatus statusOf(String name) {
    try {
      return InstanceStatus.valueOf(name);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** The totals of one task's rows, newest first. */
  static Totals totalsOf(List<Row> newestFirst) {
    int runs = 0;
    int failures = 0;
    Long last = null;
    long durationSum = 0;
    int durations = 0;
    for (Row row : newestFirst) {
      InstanceStatus status = statusOf(row.status());
      if (status == null) {
        continue; // a status this version does not know (a newer writer): counted as nothing
      }
      if (ENDED.contains(status)) {
        runs++;
      }
      if (FAILED.contains(status)) {
        failures++;
      }
      if (ENDED.contains(status) && row.claimedAtMs() != null && row.finishedAtMs() != null) {
        long duration = Math.max(0, row.finishedAtMs() - row.claimedAtMs());
        if (last == null) {
          last = duration;
        }
        durationSum += duration;
        durations++;
      }
    }
    return new Totals(
        newestFirst.size(), runs, failures, last, durations == 0 ? null : durationSum / durations);
  }
}
