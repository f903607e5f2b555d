package dev.ax.api.http;

import dev.ax.api.read.NextFiringsView;
import dev.ax.api.read.RunsView;
import dev.ax.api.read.TaskListing;
import dev.ax.api.read.TaskQueries;
import dev.ax.api.read.TaskView;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.model.TriggerType;
import dev.ax.common.schedule.UpcomingFirings;
import dev.ax.common.store.TaskRuns;
import dev.ax.common.time.SystemClock;
import io.javalin.http.Context;
import javax.sql.DataSource;

/**
 * The task reads of the API: {@code GET /api/v1/tasks} (filtered, paged by task id, with a bounded
 * total), {@code GET /api/v1/tasks/{taskId}} and {@code GET
 * /api/v1/tasks/{taskId}/instances/{instanceId}}, {@code .../runs} and {@code
 * .../runs/{instanceId}/{attempt}} (runs with their output), {@code .../next?n=} (the next firings,
 * {@link NextFiringsView}), each in the request's namespace (answers show stored ids: {@code
 * <namespace>~<id>} outside the default namespace). Stateless over a pool; thread-safe.
 */
final class TaskRoutes {

  /** Largest page. */
  static final int MAX_LIMIT = 1000;

  /** A total is counted up to this many tasks; beyond, {@code totalIsAtLeast} says so. */
  private final TaskListing listing;

  private final TaskView view;
  private final RunsView runs;
  private final NextFiringsView next;

  TaskRoutes(DataSource dataSource) {
    this.listing = new TaskListing(dataSource);
    this.view = new TaskView(dataSource);
    this.runs = new RunsView(dataSource);
    this.next = new NextFiringsView(dataSource, new SystemClock()::millis);
  }

  /**
   * {@code GET /api/v1/tasks/{taskId}/next?n=}: the task's next {@code n} (1..1000, default 10)
   * firings, calendars, jitter and end applied.
   */
  void next(Context ctx) {
    String taskId = ApiServer.storedId(ctx, ctx.pathParam("taskId"));
    int n =
        QueryParams.integer(ctx, "n", UpcomingFirings.DEFAULT_COUNT, 1, UpcomingFirings.MAX_COUNT);
    ApiServer.json(
        ctx, next.next(taskId, n).orElseThrow(() -> ApiException.notFound("no task " + taskId)));
  }

  /** {@code GET /api/v1/tasks/{taskId}/runs?limit=}: the task's latest runs with their output. */
  void runs(Context ctx) {
    String taskId = ApiServer.storedId(ctx, ctx.pathParam("taskId"));
    int limit = QueryParams.integer(ctx, "limit", 20, 1, TaskRuns.MAX_LIMIT);
    ApiServer.json(
        ctx,
        runs.runs(taskId, limit).orElseThrow(() -> ApiException.notFound("no task " + taskId)));
  }

  /** {@code GET /api/v1/tasks/{taskId}/runs/{instanceId}/{attempt}}: one run with its output. */
  void run(Context ctx) {
    String taskId = ApiServer.storedId(ctx, ctx.pathParam("taskId"));
    String instanceId = ctx.pathParam("instanceId");
    int attempt;
    try {
      attempt = Integer.parseInt(ctx.pathParam("attempt"));
    } catch (NumberFormatException e) {
      throw ApiException.notFound("no attempt " + ctx.pathParam("attempt") + " of " + instanceId);
    }
    ApiServer.json(
        ctx,
        runs.run(taskId, instanceId, attempt)
            .orElseThrow(
                () ->
                    ApiException.notFound(
                        "no run " + instanceId + " #" + attempt + " of task " + taskId)));
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
