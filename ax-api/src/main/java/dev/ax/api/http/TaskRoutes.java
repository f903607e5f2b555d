package dev.ax.api.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.read.RecentRuns;
import dev.ax.api.read.TaskQueries;
import dev.ax.api.read.TaskView;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.model.TriggerType;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The task reads of the API: {@code GET /api/v1/tasks} (filtered, paged by task id, with a bounded
 * total), {@code GET /api/v1/tasks/{taskId}} and {@code GET
 * /api/v1/tasks/{taskId}/instances/{instanceId}}. Stateless over a pool; thread-safe.
 */
final class TaskRoutes {

  /** Largest page. */
  static final int MAX_LIMIT = 1000;

  /** A total is counted up to this many tasks; beyond, {@code totalIsAtLeast} says so. */
  static final long TOTAL_CAP = 10_000;

  private final TaskQueries queries;
  private final TaskView view;
  private final RecentRuns recentRuns;

  TaskRoutes(DataSource dataSource) {
    this.queries = new TaskQueries(dataSource);
    this.view = new TaskView(dataSource);
    this.recentRuns = new RecentRuns(dataSource);
  }

  void list(Context ctx) {
    TaskQueries.Filter filter =
        new TaskQueries.Filter(
            QueryParams.text(ctx, "group"),
            QueryParams.oneOf(ctx, "state", TaskState.class),
            QueryParams.oneOf(ctx, "trigger", TriggerType.class),
            QueryParams.oneOf(ctx, "lastStatus", InstanceStatus.class),
            QueryParams.text(ctx, "text"),
            QueryParams.text(ctx, "after"));
    int limit = QueryParams.integer(ctx, "limit", 50, 1, MAX_LIMIT);
    List<TaskQueries.TaskSummary> page = queries.list(filter, limit);
    long total = queries.count(filter, TOTAL_CAP);
    ObjectNode body = AxJson.MAPPER.createObjectNode();
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
    body.set("tasks", tasks);
    body.put("total", total).put("totalIsAtLeast", total >= TOTAL_CAP);
    if (page.size() == limit) {
      body.put("next", page.get(page.size() - 1).taskId());
    } else {
      body.putNull("next");
    }
    ApiServer.json(ctx, body);
  }

  void task(Context ctx) {
    String taskId = ctx.pathParam("taskId");
    boolean reveal = QueryParams.flag(ctx, "reveal");
    if (reveal && !ApiServer.caller(ctx).mayOperate()) {
      throw new ApiException(
          403, "forbidden", "revealing parameters and headers needs the operate role");
    }
    int instances = QueryParams.integer(ctx, "instances", 10, 1, MAX_LIMIT);
    ApiServer.json(
        ctx,
        view.task(taskId, instances, reveal)
            .orElseThrow(() -> ApiException.notFound("no task " + taskId)));
  }

  void instance(Context ctx) {
    String taskId = ctx.pathParam("taskId");
    String instanceId = ctx.pathParam("instanceId");
    ApiServer.json(
        ctx,
        view.instance(taskId, instanceId)
            .orElseThrow(
                () -> ApiException.notFound("no instance " + instanceId + " of task " + taskId)));
  }
}
