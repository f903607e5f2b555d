package dev.ax.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.write.PoolBoard;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.PoolStrategy;
import dev.ax.common.store.PoolStore;
import dev.ax.common.store.PoolStore.Change;
import io.javalin.http.Context;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;

/**
 * The executor pools in the API, as {@code ax pool} shows and changes them: {@code GET
 * /api/v1/pools}, {@code GET /api/v1/pools/{pool}}, {@code POST /api/v1/pools/{pool}} (create, or
 * set strategy and offline-after), {@code POST .../endpoints} (register), {@code .../drain}, {@code
 * .../undrain}, {@code .../remove} (an endpoint, or the pool without {@code url}), each with a
 * reason and audited; and {@code POST .../heartbeat} with {@code {"url": ...}}, which an endpoint
 * calls itself (a token of role {@code heartbeat} may call nothing else). Pools are AX-wide, so
 * every route but the heartbeat needs a token of every namespace. Thread-safe.
 */
final class PoolRoutes {

  private static final java.util.regex.Pattern HEARTBEAT =
      java.util.regex.Pattern.compile("/api/v1/pools/[^/]+/heartbeat");

  private final PoolBoard board;

  PoolRoutes(PoolBoard board) {
    this.board = board;
  }

  /** Adds the pool routes, in the order the OpenAPI document lists them. */
  static void add(java.util.List<ApiServer.Bound> bound, javax.sql.DataSource dataSource) {
    PoolRoutes pools =
        new PoolRoutes(
            new PoolBoard(
                new PoolStore(dataSource),
                new dev.ax.api.audit.OperatorLog(dataSource),
                new dev.ax.common.time.SystemClock()
                    ::millis)); // wall time, as the dispatchers' DB clock
    bound.add(ApiServer.get("/api/v1/pools", pools::list));
    bound.add(ApiServer.get("/api/v1/pools/{pool}", pools::pool));
    bound.add(ApiServer.post("/api/v1/pools/{pool}", pools::create));
    bound.add(ApiServer.post("/api/v1/pools/{pool}/endpoints", pools::register));
    bound.add(ApiServer.post("/api/v1/pools/{pool}/heartbeat", pools::heartbeat));
    bound.add(ApiServer.post("/api/v1/pools/{pool}/drain", pools::drain));
    bound.add(ApiServer.post("/api/v1/pools/{pool}/undrain", pools::undrain));
    bound.add(ApiServer.post("/api/v1/pools/{pool}/remove", pools::remove));
  }

  /** Whether {@code ctx} is an endpoint's heartbeat: all a heartbeat-role token may call. */
  static boolean isHeartbeat(Context ctx) {
    return ctx.method().name().equals("POST") && HEARTBEAT.matcher(ctx.path()).matches();
  }

  void list(Context ctx) {
    ApiServer.requireEveryNamespace(ctx, "the executor pools");
    ObjectNode body = AxJson.MAPPER.createObjectNode();
    body.set("pools", AxJson.MAPPER.valueToTree(board.pools()));
    ApiServer.json(ctx, body);
  }

  void pool(Context ctx) {
    ApiServer.requireEveryNamespace(ctx, "an executor pool");
    String pool = poolName(ctx);
    ApiServer.json(
        ctx,
        AxJson.MAPPER.valueToTree(
            board.pool(pool).orElseThrow(() -> ApiException.notFound("no executor pool " + pool))));
  }

  void create(Context ctx) {
    ApiServer.requireEveryNamespace(ctx, "an executor pool change");
    String pool = poolName(ctx);
    JsonBody body = JsonBody.of(ctx, Set.of("strategy", "offlineAfterMs", "reason"));
    String strategyText = body.text("strategy");
    PoolStrategy strategy;
    try {
      strategy =
          strategyText == null
              ? PoolStrategy.ROUND_ROBIN
              : PoolStrategy.valueOf(strategyText.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(
          "strategy must be one of " + java.util.Arrays.toString(PoolStrategy.values()));
    }
    String offlineText = body.text("offlineAfterMs");
    Duration offlineAfter = PoolBoard.DEFAULT_OFFLINE_AFTER;
    if (offlineText != null) {
      try {
        offlineAfter = Duration.ofMillis(Long.parseLong(offlineText));
      } catch (NumberFormatException e) {
        throw ApiException.badRequest("offlineAfterMs must be a whole number of milliseconds");
      }
    }
    check(PoolBoard.offlineAfterProblem(offlineAfter));
    Change change =
        board.create(pool, strategy, offlineAfter, ApiServer.caller(ctx).name(), body.reason());
    answer(ctx, pool, null, change);
  }

  void register(Context ctx) {
    endpointChange(ctx, "register");
  }

  void drain(Context ctx) {
    endpointChange(ctx, "drain");
  }

  void undrain(Context ctx) {
    endpointChange(ctx, "undrain");
  }

  void remove(Context ctx) {
    ApiServer.requireEveryNamespace(ctx, "an executor pool change");
    String pool = poolName(ctx);
    JsonBody body = JsonBody.of(ctx, Set.of("url", "reason"));
    String url = body.text("url");
    if (url != null) {
      check(PoolBoard.urlProblem(url));
    }
    String actor = ApiServer.caller(ctx).name();
    answer(ctx, pool, url, board.remove(pool, url, actor, body.reason()));
  }

  /** An endpoint's own heartbeat: no reason; registers it on its first. */
  void heartbeat(Context ctx) {
    Caller caller = ApiServer.caller(ctx);
    String pool = poolName(ctx);
    if (!caller.mayHeartbeat(pool)) {
      throw new ApiException(
          403,
          "forbidden",
          caller.heartbeatOnly()
              ? caller.name() + "'s heartbeat token does not name pool " + pool
              : "a heartbeat needs a token of role heartbeat naming the pool, or of every"
                  + " namespace; "
                  + caller.name()
                  + "'s is scoped to "
                  + caller.namespaces());
    }
    String url = heartbeatUrl(ctx);
    check(PoolBoard.urlProblem(url));
    answer(ctx, pool, url, board.heartbeat(pool, url, caller.name(), "first heartbeat"));
  }

  private void endpointChange(Context ctx, String action) {
    ApiServer.requireEveryNamespace(ctx, "an executor pool change");
    String pool = poolName(ctx);
    JsonBody body = JsonBody.of(ctx, Set.of("url", "reason"));
    String url = body.text("url");
    check(PoolBoard.urlProblem(url));
    String actor = ApiServer.caller(ctx).name();
    Change change =
        switch (action) {
          case "register" -> board.heartbeat(pool, url, actor, body.reason());
          case "drain" -> board.drain(pool, url, actor, body.reason());
          case "undrain" -> board.undrain(pool, url, actor, body.reason());
          default -> throw new IllegalArgumentException("no pool action " + action);
        };
    answer(ctx, pool, url, change);
  }

  private static String heartbeatUrl(Context ctx) {
    JsonNode body;
    try {
      body = AxJson.MAPPER.readTree(ctx.body());
    } catch (IOException e) {
      throw ApiException.badRequest("a heartbeat is JSON: {\"url\": \"http://host:port\"}");
    }
    if (body == null || !body.path("url").isTextual() || body.size() != 1) {
      throw ApiException.badRequest("a heartbeat is JSON: {\"url\": \"http://host:port\"}");
    }
    return body.get("url").asText();
  }

  private static String poolName(Context ctx) {
    String pool = ctx.pathParam("pool");
    check(PoolBoard.nameProblem(pool));
    return pool;
  }

  private static void check(String problem) {
    if (problem != null) {
      throw ApiException.badRequest(problem);
    }
  }

  private static void answer(Context ctx, String pool, String url, Change change) {
    switch (change) {
      case NO_POOL -> throw ApiException.notFound("no executor pool " + pool);
      case NO_ENDPOINT ->
          throw ApiException.notFound("no endpoint " + url + " in executor pool " + pool);
      case FULL ->
          throw new ApiException(
              409,
              "full",
              "at most "
                  + PoolStore.MAX_POOLS
                  + " pools and "
                  + PoolStore.MAX_ENDPOINTS_PER_POOL
                  + " endpoints per pool");
      default -> {
        ObjectNode node = AxJson.MAPPER.createObjectNode().put("pool", pool);
        if (url != null) {
          node.put("url", PoolBoard.normalized(url));
        }
        ApiServer.json(ctx, node.put("change", change.name()));
      }
    }
  }
}
