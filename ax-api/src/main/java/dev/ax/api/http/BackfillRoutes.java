package dev.ax.api.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.api.read.BackfillView;
import dev.ax.api.write.BackfillRequests;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.store.BackfillStore;
import dev.ax.common.time.SystemClock;
import io.javalin.http.Context;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.sql.DataSource;

/**
 * A task's backfills in the API, as {@code ax task backfill} makes and {@code ax task backfills}
 * shows them: {@code GET /api/v1/tasks/{taskId}/backfills} (newest first), {@code POST} the same
 * path with {@code {"from", "to", "overlap"?, "reason"}} (ISO-8601 instants; 201 with the backfill,
 * 409 with the reason when refused), and {@code POST .../backfills/{backfillId}/cancel} with a
 * reason. Through {@link BackfillRequests}, by the caller's name, in the request's namespace.
 * Thread-safe.
 */
final class BackfillRoutes {

  private final BackfillRequests requests;

  private BackfillRoutes(BackfillRequests requests) {
    this.requests = requests;
  }

  /** Adds the backfill routes, in the order the OpenAPI document lists them. */
  static void add(List<ApiServer.Bound> bound, DataSource dataSource) {
    BackfillRoutes routes =
        new BackfillRoutes(
            new BackfillRequests(
                dataSource, new OperatorLog(dataSource), new SystemClock()::millis));
    bound.add(ApiServer.get("/api/v1/tasks/{taskId}/backfills", routes::list));
    bound.add(ApiServer.post("/api/v1/tasks/{taskId}/backfills", routes::request));
    bound.add(
        ApiServer.post("/api/v1/tasks/{taskId}/backfills/{backfillId}/cancel", routes::cancel));
  }

  void list(Context ctx) {
    String taskId = ApiServer.storedId(ctx, ctx.pathParam("taskId"));
    ObjectNode body = AxJson.MAPPER.createObjectNode();
    body.put("taskId", taskId);
    body.set(
        "backfills",
        AxJson.MAPPER.valueToTree(requests.ofTask(taskId).stream().map(BackfillView::of).toList()));
    ApiServer.json(ctx, body);
  }

  void request(Context ctx) {
    String taskId = ApiServer.storedId(ctx, ctx.pathParam("taskId"));
    JsonBody body = JsonBody.of(ctx, Set.of("from", "to", "overlap", "reason"));
    Instant from = instant(body, "from");
    Instant to = instant(body, "to");
    String overlapText = body.text("overlap");
    OverlapPolicy overlap = null;
    if (overlapText != null) {
      try {
        overlap = OverlapPolicy.valueOf(overlapText.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw ApiException.badRequest(
            "overlap must be one of " + Arrays.toString(OverlapPolicy.values()));
      }
    }
    BackfillStore.Requested requested =
        requests.request(taskId, from, to, overlap, ApiServer.caller(ctx).name(), body.reason());
    if (requested instanceof BackfillStore.Requested.Refused refused) {
      throw refused.unknownTask()
          ? ApiException.notFound(refused.reason())
          : new ApiException(409, "refused", refused.reason());
    }
    ctx.status(201);
    ApiServer.json(
        ctx,
        AxJson.MAPPER.valueToTree(
            BackfillView.of(((BackfillStore.Requested.Accepted) requested).backfill())));
  }

  void cancel(Context ctx) {
    String taskId = ApiServer.storedId(ctx, ctx.pathParam("taskId"));
    String backfillId = ctx.pathParam("backfillId");
    JsonBody body = JsonBody.of(ctx, Set.of("reason"));
    requests
        .find(backfillId)
        .filter(b -> b.taskId().equals(taskId))
        .orElseThrow(() -> ApiException.notFound("no backfill " + backfillId + " of " + taskId));
    BackfillStore.Cancel cancel =
        requests
            .cancel(backfillId, ApiServer.caller(ctx).name(), body.reason())
            .orElseThrow(() -> ApiException.notFound("no backfill " + backfillId));
    if (!cancel.stopped()) {
      throw new ApiException(
          409,
          "refused",
          "backfill " + backfillId + " is " + cancel.backfill().state() + " already");
    }
    ApiServer.json(ctx, AxJson.MAPPER.valueToTree(BackfillView.of(cancel.backfill())));
  }

  private static Instant instant(JsonBody body, String field) {
    String text = body.text(field);
    if (text == null) {
      throw ApiException.badRequest(
          "a backfill needs \"from\" and \"to\", ISO-8601 instants (2026-03-01T00:00:00Z)");
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw ApiException.badRequest(
          field + " must be an ISO-8601 instant such as 2026-03-01T00:00:00Z: " + text);
    }
  }
}
