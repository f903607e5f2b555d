package dev.ax.api.http;

import dev.ax.api.read.TaskListing;
import dev.ax.api.read.TaskQueries;
import dev.ax.api.read.TaskView;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.model.TriggerType;
import io.javalin.http.Context;
import javax.sql.DataSource;

/**
 * The task reads of the API: {@code GET /api/v1/tasks} (filtered, paged by task id, with a bounded
 * total), {@code GET /api/v1/tasks/{taskId}} and {@code GET
 * /api/v1/tasks/{taskId}/instances/{instanceId}}, each in the request's namespace (answers show
 * stored ids: {@code <namespace>~<id>} outside the default namespace). Stateless over a pool;
 * thread-safe.
 */
final class TaskRoutes {

  /** Largest page. */
  static final int MAX_LIMIT = 1000;

  /** A total is counted up to this many tasks; beyond, {@code totalIsAtLeast} says so. */
  private final TaskListing listing;

  private final TaskView view;

  TaskRoutes(DataSource dataSource) {
    this.listing = new TaskListing(dataSource);
    this.view = new TaskView(dataSource);
  }

  void list(Context ctx) {
    String group = QueryParams.text(ctx, "group");
    String after = QueryParams.text(ctx, "after");
    TaskQueries.Filter filter =
        new TaskQueries.Filter(
            group == null ? null : ApiServer.storedId(ctx, group),
            QueryParams.oneOf(ctx, "state", TaskState.class),
            QueryParams.oneOf(ctx, "trigger", TriggerType.class),
            QueryParams.oneOf(ctx, "lastStatus", InstanceStatus.class),
            QueryParams.text(ctx, "text"),
            after == null ? null : ApiServer.storedId(ctx, after),
            ApiServer.namespace(ctx));
    int limit = QueryParams.integer(ctx, "limit", 50, 1, MAX_LIMIT);
    ApiServer.json(ctx, listing.page(filter, limit));
  }

  void task(Context ctx) {
    String taskId = ApiServer.storedId(ctx, ctx.pathParam("taskId"));
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
    String taskId = ApiServer.storedId(ctx, ctx.pathParam("taskId"));
    String instanceId = ctx.pathParam("instanceId");
    ApiServer.json(
        ctx,
        view.instance(taskId, instanceId)
            .orElseThrow(
                () -> ApiException.notFound("no instance " + instanceId + " of task " + taskId)));
  }
}
