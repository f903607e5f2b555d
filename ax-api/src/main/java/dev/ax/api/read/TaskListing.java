package dev.ax.api.read;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * One page of the task list as JSON, the same for {@code GET /api/v1/tasks} and {@code ax task list
 * --json}: the tasks with ISO times and their {@link RecentRuns} totals, the total matching
 * (counted up to {@value #TOTAL_CAP}) and the id to ask the next page after. Thread-safe.
 */
public final class TaskListing {

  /** Totals are counted up to this many; a total of it means "at least". */
  public static final long TOTAL_CAP = 10_000;

  private final TaskQueries queries;
  private final RecentRuns recentRuns;

  public TaskListing(DataSource dataSource) {
    this.queries = new TaskQueries(dataSource);
    this.recentRuns = new RecentRuns(dataSource);
  }

  /** Up to {@code limit} tasks matching {@code filter}, by task id. */
  public ObjectNode page(TaskQueries.Filter filter, int limit) {
    List<TaskQueries.TaskSummary> page = queries.list(filter, limit);
    long total = queries.count(filter, TOTAL_CAP);
    Map<String, RecentRuns.Totals> totals =
        recentRuns.of(page.stream().map(TaskQueries.TaskSummary::taskId).toList());
    ArrayNode tasks = AxJson.MAPPER.createArrayNode();
    for (TaskQueries.TaskSummary summary : page) {
      ObjectNode task = AxJson.MAPPER.valueToTree(summary);
      task.put("updatedAt", Instant.ofEpochMilli(summary.updatedAtMs()).toString());
      if (summary.lastDueAtMs() != null) {
        task.put("lastDueAt", Instant.ofEpochMilli(summary.lastDueAtMs()).toString());
      }
      task.set("recent", totals.get(summary.taskId()).toJson());
      tasks.add(task);
    }
    ObjectNode body = AxJson.MAPPER.createObjectNode();
    body.set("tasks", tasks);
    body.put("total", total).put("totalIsAtLeast", total >= TOTAL_CAP);
    if (page.size() == limit) {
      body.put("next", page.get(page.size() - 1).taskId());
    } else {
      body.putNull("next");
    }
    return body;
  }
}
