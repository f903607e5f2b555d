package dev.ax.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.write.TaskCommands;
import dev.ax.common.contract.AxJson;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API, {@code /api/v1}, on Javalin: JSON in and out, every route listed in {@link #ROUTES}
 * and in the OpenAPI document served at {@code /api/v1/openapi.json} (kept in
 * docs/contract/openapi.json). Every request passes the access check first: the rate per client,
 * then the token when there are tokens, then the role for a change. Errors are JSON {@code {"code",
 * "message"}}. A bounded pool of {@link #THREADS} threads serves requests. Started by {@link
 * #start}, stopped by {@link #close}; thread-safe.
 */
public final class ApiServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ApiServer.class);

  /** Most threads serving requests at once. */
  static final int THREADS = 16;

  /** One route: a method, a path in OpenAPI's form ({@code {param}}), and what answers it. */
  record Route(String method, String path) {}

  /** Every route, in the order the OpenAPI document lists them. */
  static final List<Route> ROUTES =
      List.of(
          new Route("GET", "/api/v1/openapi.json"),
          new Route("GET", "/api/v1/tasks"),
          new Route("GET", "/api/v1/tasks/{taskId}"),
          new Route("GET", "/api/v1/tasks/{taskId}/instances/{instanceId}"),
          new Route("POST", "/api/v1/tasks/{taskId}/pause"),
          new Route("POST", "/api/v1/tasks/{taskId}/resume"),
          new Route("POST", "/api/v1/tasks/{taskId}/cancel"),
          new Route("POST", "/api/v1/tasks/{taskId}/delete"),
          new Route("POST", "/api/v1/tasks/{taskId}/run-now"),
          new Route("POST", "/api/v1/groups/{group}/pause"),
          new Route("POST", "/api/v1/groups/{group}/resume"));

  private static final String CALLER = "ax.caller";

  private final Javalin app;

  private ApiServer(Javalin app) {
    this.app = app;
  }

  /**
   * Serves the API over {@code dataSource} as {@code settings} say, sending changes through {@code
   * changes}.
   *
   * @throws dev.ax.common.config.ConfigException when the address cannot be bound
   */
  public static ApiServer start(ApiSettings settings, DataSource dataSource, TaskCommands changes) {
    byte[] openApi = openApiDocument();
    TaskRoutes tasks = new TaskRoutes(dataSource);
    CommandRoutes commands = new CommandRoutes(changes);
    Map<Route, Handler> handlers = new HashMap<>();
    handlers.put(ROUTES.get(0), ctx -> ctx.contentType("application/json").result(openApi));
    handlers.put(ROUTES.get(1), tasks::list);
    handlers.put(ROUTES.get(2), tasks::task);
    handlers.put(ROUTES.get(3), tasks::instance);
    for (Route route : ROUTES.subList(4, ROUTES.size())) {
      String action = route.path().substring(route.path().lastIndexOf('/') + 1);
      String type = action.toUpperCase(Locale.ROOT).replace('-', '_');
      handlers.put(
          route,
          route.path().startsWith("/api/v1/groups/") ? commands.group(type) : commands.task(type));
    }
    Access access =
        new Access(settings, new ClientRate(settings.ratePerSecond(), System::nanoTime));
    Javalin app =
        Javalin.create(
            config -> {
              config.startup.showJavalinBanner = false;
              config.startup.showOldJavalinVersionWarning = false;
              config.http.maxRequestSize = settings.maxRequestBytes();
              config.http.prefer405over404 = true;
              config.jetty.threadPool = new QueuedThreadPool(THREADS, 2);
              config.routes.before("/api/*", access::check);
              for (Route route : ROUTES) {
                switch (route.method()) {
                  case "GET" -> config.routes.get(route.path(), handlers.get(route));
                  case "POST" -> config.routes.post(route.path(), handlers.get(route));
                  default -> throw new IllegalStateException("no such method: " + route);
                }
              }
              config.routes.exception(
                  ApiException.class, (e, ctx) -> error(ctx, e.status(), e.code(), e.getMessage()));
              config.routes.exception(
                  HttpResponseException.class,
                  (e, ctx) -> error(ctx, e.getStatus(), code(e.getStatus()), e.getMessage()));
              config.routes.exception(
                  Exception.class,
                  (e, ctx) -> {
                    String id = UUID.randomUUID().toString();
                    log.error(
                        "API request {} {} failed (error id {})", ctx.method(), ctx.path(), id, e);
                    error(ctx, 500, "internal", "the server failed; its log names error id " + id);
                  });
            });
    try {
      app.start(settings.host(), settings.port());
    } catch (RuntimeException e) {
      throw new dev.ax.common.config.ConfigException(
          "AX_CONSOLE_BIND="
              + settings.host()
              + ":"
              + settings.port()
              + " cannot be bound (in use, or not an address of this machine): "
              + e.getMessage());
    }
    log.info(
        "API listening on http://{}:{}/api/v1 ({})",
        settings.host(),
        app.port(),
        settings.tokens().map(t -> t.size() + " token(s)").orElse("loopback, no tokens"));
    return new ApiServer(app);
  }

  /** The port bound (the one asked for, or the free one found for port 0). */
  public int port() {
    return app.port();
  }

  @Override
  public void close() {
    app.stop();
  }

  /** Who makes the request in {@code ctx}, as the access check found. */
  static Caller caller(Context ctx) {
    Caller caller = ctx.attribute(CALLER);
    if (caller == null) {
      throw new IllegalStateException("no access check ran for " + ctx.path());
    }
    return caller;
  }

  /** Answers {@code body} as JSON. */
  static void json(Context ctx, JsonNode body) {
    try {
      ctx.contentType("application/json").result(AxJson.MAPPER.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree always writes", e);
    }
  }

  private static void error(Context ctx, int status, String code, String message) {
    ctx.status(status);
    json(ctx, AxJson.MAPPER.createObjectNode().put("code", code).put("message", message));
  }

  /** The stable code of an HTTP status Javalin or Jetty answered with. */
  static String code(int status) {
    return switch (status) {
      case 400 -> "bad_request";
      case 401 -> "unauthorized";
      case 403 -> "forbidden";
      case 404 -> "no_route";
      case 405 -> "method_not_allowed";
      case 413 -> "payload_too_large";
      case 429 -> "too_many_requests";
      default -> HttpStatus.forStatus(status).name().toLowerCase(Locale.ROOT);
    };
  }

  private static byte[] openApiDocument() {
    try (InputStream in = ApiServer.class.getResourceAsStream("/dev/ax/api/openapi.json")) {
      if (in == null) {
        throw new IllegalStateException("openapi.json is missing from ax-api's class path");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The check before every request: rate, token, role. Thread-safe. */
  private record Access(ApiSettings settings, ClientRate rate) {

    void check(Context ctx) {
      if (!rate.admit(ctx.ip())) {
        ctx.header("Retry-After", "1");
        throw new ApiException(
            429,
            "too_many_requests",
            "more than " + settings.ratePerSecond() + " requests a second from this client");
      }
      ctx.header("X-Content-Type-Options", "nosniff");
      ctx.header("Cache-Control", "no-store");
      String header = ctx.header("Authorization");
      String token =
          header != null && header.startsWith("Bearer ") ? header.substring(7).strip() : null;
      Caller caller;
      if (settings.tokens().isEmpty()) {
        caller = Caller.LOCAL;
      } else if (token == null) {
        throw new ApiException(
            401, "unauthorized", "this API needs an `Authorization: Bearer <token>` header");
      } else {
        caller =
            settings
                .tokens()
                .get()
                .caller(token)
                .orElseThrow(() -> new ApiException(401, "unauthorized", "unknown token"));
      }
      if (!ctx.method().name().equals("GET") && !caller.mayOperate()) {
        throw new ApiException(403, "forbidden", caller.name() + " has the read role only");
      }
      ctx.attribute(CALLER, caller);
    }
  }
}
