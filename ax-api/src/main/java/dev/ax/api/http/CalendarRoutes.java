package dev.ax.api.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.api.write.CalendarBoard;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.ExclusionCalendarJson;
import dev.ax.common.model.Namespace;
import dev.ax.common.schedule.ExclusionCalendar;
import dev.ax.common.store.CalendarStore;
import dev.ax.common.store.CalendarStore.Change;
import dev.ax.common.store.CalendarStore.Deletion;
import dev.ax.common.time.SystemClock;
import io.javalin.http.Context;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The exclusion calendars in the API, as {@code ax calendar} shows and changes them, each in the
 * request's namespace ({@code ?namespace=}; the token must reach it): {@code GET
 * /api/v1/calendars}, {@code GET /api/v1/calendars/{name}}, {@code POST /api/v1/calendars/{name}}
 * (create), {@code POST .../update} and {@code POST .../delete}; a change's body is {@code
 * {"calendar": {calendar JSON}, "reason": "..."}} (a delete's only the reason), audited. A bad
 * calendar is 400 with the reason; a create of one that exists, a delete that live tasks refuse
 * (the message names them) or a create past the bound are 409. Thread-safe.
 */
final class CalendarRoutes {

  private final CalendarBoard board;

  CalendarRoutes(CalendarBoard board) {
    this.board = board;
  }

  /** Adds the calendar routes, in the order the OpenAPI document lists them. */
  static void add(List<ApiServer.Bound> bound, DataSource dataSource) {
    CalendarRoutes calendars =
        new CalendarRoutes(
            new CalendarBoard(
                new CalendarStore(dataSource),
                new OperatorLog(dataSource),
                new SystemClock()::millis));
    bound.add(ApiServer.get("/api/v1/calendars", calendars::list));
    bound.add(ApiServer.get("/api/v1/calendars/{name}", calendars::show));
    bound.add(ApiServer.post("/api/v1/calendars/{name}", ctx -> calendars.put(ctx, true)));
    bound.add(ApiServer.post("/api/v1/calendars/{name}/update", ctx -> calendars.put(ctx, false)));
    bound.add(ApiServer.post("/api/v1/calendars/{name}/delete", calendars::delete));
  }

  void list(Context ctx) {
    Namespace namespace = ApiServer.namespace(ctx);
    ObjectNode body = AxJson.MAPPER.createObjectNode();
    body.put("namespace", namespace.name());
    body.putArray("calendars").addAll(board.list(namespace));
    ApiServer.json(ctx, body);
  }

  void show(Context ctx) {
    Namespace namespace = ApiServer.namespace(ctx);
    String name = name(ctx);
    ApiServer.json(
        ctx,
        board
            .show(namespace, name)
            .orElseThrow(() -> ApiException.notFound("no calendar " + name + " in " + namespace)));
  }

  void put(Context ctx, boolean create) {
    Namespace namespace = ApiServer.namespace(ctx);
    String name = name(ctx);
    JsonBody body = JsonBody.of(ctx, Set.of("calendar", "reason"));
    ObjectNode spec = body.object("calendar");
    if (spec == null) {
      throw ApiException.badRequest(
          "a calendar change needs {\"calendar\": {\"zone\": ..., \"dates\": [...], ...}}");
    }
    ExclusionCalendar calendar;
    try {
      calendar = ExclusionCalendarJson.read(name, spec);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(e.getMessage());
    }
    Change change =
        board.put(namespace, calendar, create, ApiServer.caller(ctx).name(), body.reason());
    switch (change) {
      case EXISTS ->
          throw new ApiException(
              409, "exists", "calendar " + name + " exists; change it with .../update");
      case NO_CALENDAR -> throw ApiException.notFound("no calendar " + name + " in " + namespace);
      case FULL ->
          throw new ApiException(
              409, "full", "at most " + CalendarStore.MAX_CALENDARS + " calendars");
      default -> answer(ctx, name, change.name());
    }
  }

  void delete(Context ctx) {
    Namespace namespace = ApiServer.namespace(ctx);
    String name = name(ctx);
    JsonBody body = JsonBody.of(ctx, Set.of("reason"));
    Deletion deletion = board.delete(namespace, name, ApiServer.caller(ctx).name(), body.reason());
    if (!deletion.existed()) {
      throw ApiException.notFound("no calendar " + name + " in " + namespace);
    }
    if (!deletion.deleted()) {
      throw new ApiException(409, "in_use", CalendarBoard.inUse(name, deletion));
    }
    answer(ctx, name, Change.DELETED.name());
  }

  private static void answer(Context ctx, String name, String change) {
    ApiServer.json(
        ctx, AxJson.MAPPER.createObjectNode().put("calendar", name).put("change", change));
  }

  private static String name(Context ctx) {
    String name = ctx.pathParam("name");
    String problem = CalendarBoard.nameProblem(name);
    if (problem != null) {
      throw ApiException.badRequest(problem);
    }
    return name;
  }
}
