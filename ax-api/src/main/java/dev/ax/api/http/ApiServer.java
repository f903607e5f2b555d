package dev.ax.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.common.contract.AxJson;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import dev.ax.deadletter.DeadLetterStore;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API, {@code /api/v1}, on Javalin: JSON in and out, every route listed once in {@link
 * #start} and in the OpenAPI document served at {@code /api/v1/openapi.json} (kept in
 * docs/contract/openapi.json). Every request passes the access check first: the rate per client,
 * then the token when there are tokens, then the role for a change. Errors are JSON {@code {"code",
 * "message"}}. A bounded pool of {@link #THREADS} threads serves requests. Started by {@link
 * #start}, stopped by {@link #close}; thread-safe.
 */
public final class ApiServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ApiServer.class);

  /** Most threads serving requests at once. */
  static final int THREADS = 16;

  /** One route: a method and a path in OpenAPI's form ({@code {param}}). */
  public record Route(String method, String path) {}

  /** A route and what answers it. */
  record Bound(Route route, Handler handler) {}

  private static final String CALLER = "ax.caller";
  private static final String NAMESPACE = "ax.namespace";

  private final Javalin app;
  private final List<Route> routes;

  private ApiServer(Javalin app, List<Route> routes) {
    this.app = app;
    this.routes = routes;
  }

  /**
   * Serves the API over {@code backends} as {@code settings} say.
   *
   * @throws dev.ax.common.config.ConfigException when the address cannot be bound
   */
  public static ApiServer start(ApiSettings settings, ApiBackends backends) {
    List<Bound> bound = routes(backends);
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
              ConsoleFiles console = ConsoleFiles.load();
              config.routes.get("/", ctx -> ctx.redirect("/console/"));
              config.routes.get("/console/", console.serve("index.html"));
              config.routes.get("/console/console.js", console.serve("console.js"));
              config.routes.get("/console/console.css", console.serve("console.css"));
              for (Bound route : bound) {
                switch (route.route().method()) {
                  case "GET" -> config.routes.get(route.route().path(), route.handler());
                  case "POST" -> config.routes.post(route.route().path(), route.handler());
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
      app.stop(); // its thread pool and whatever Jetty started before the bind failed
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
    return new ApiServer(app, bound.stream().map(Bound::route).toList());
  }

  /** Every route of the API and what answers it, in the order the OpenAPI document lists them. */
  private static List<Bound> routes(ApiBackends backends) {
    byte[] openApi = openApiDocument();
    TaskRoutes tasks = new TaskRoutes(backends.dataSource());
    CommandRoutes commands = new CommandRoutes(backends.taskCommands());
    DeadLetterRoutes deadLetters =
        new DeadLetterRoutes(new DeadLetterStore(backends.dataSource()), backends.deadLetters());
    List<Bound> bound = new ArrayList<>();
    bound.add(
        get("/api/v1/openapi.json", ctx -> ctx.contentType("application/json").result(openApi)));
    Topics topics =
        backends.taskCommands() == null ? new Topics("") : backends.taskCommands().topics();
    bound.add(get("/api/v1/namespaces", new NamespaceRoutes(backends.dataSource(), topics)::list));
    bound.add(get("/api/v1/tasks", tasks::list));
    bound.add(get("/api/v1/tasks/{taskId}", tasks::task));
    bound.add(get("/api/v1/tasks/{taskId}/instances/{instanceId}", tasks::instance));
    bound.add(get("/api/v1/tasks/{taskId}/runs", tasks::runs));
    bound.add(get("/api/v1/tasks/{taskId}/runs/{instanceId}/{attempt}", tasks::run));
    bound.add(get("/api/v1/tasks/{taskId}/next", tasks::next));
    for (String type : List.of("PAUSE", "RESUME", "CANCEL", "DELETE", "RUN_NOW")) {
      bound.add(post("/api/v1/tasks/{taskId}/" + action(type), commands.task(type)));
    }
    bound.add(post("/api/v1/tasks/{taskId}/update", commands::update));
    BackfillRoutes.add(bound, backends.dataSource());
    for (String type : List.of("PAUSE", "RESUME")) {
      bound.add(post("/api/v1/groups/{group}/" + action(type), commands.group(type)));
    }
    bound.add(get("/api/v1/deadletters", deadLetters::list));
    bound.add(get("/api/v1/deadletters/{id}", deadLetters::letter));
    bound.add(post("/api/v1/deadletters/{id}/replay", deadLetters::replay));
    bound.add(post("/api/v1/deadletters/{id}/discard", deadLetters::discard));
    SwitchRoutes switches = new SwitchRoutes(backends.switches());
    bound.add(get("/api/v1/switches", switches::list));
    bound.add(post("/api/v1/switches/{name}", switches::flip));
    bound.add(get("/api/v1/summary", ctx -> json(ctx, backends.metrics().read())));
    bound.add(get("/api/v1/flows/{flowRunId}", new FlowRoutes(backends.dataSource())::run));
    bound.add(get("/api/v1/audit", new AuditRoutes(new OperatorLog(backends.dataSource()))::list));
    PoolRoutes.add(bound, backends.dataSource());
    CalendarRoutes.add(bound, backends.dataSource());
    return bound;
  }

  static Bound get(String path, Handler handler) {
    return new Bound(new Route("GET", path), handler);
  }

  static Bound post(String path, Handler handler) {
    return new Bound(new Route("POST", path), handler);
  }

  /** The path segment of a command type: {@code RUN_NOW} is {@code run-now}. */
  private static String action(String type) {
    return type.toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** Every route served, in the order the OpenAPI document lists them. */
  public List<Route> routes() {
    return routes;
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

  /**
   * The namespace the request is about ({@code ?namespace=}, default {@code default}), for a route
   * whose data belongs to one: the caller's token must reach it.
   *
   * @throws ApiException 403 when the token is scoped to other namespaces
   */
  static Namespace namespace(Context ctx) {
    Namespace namespace = ctx.attribute(NAMESPACE);
    if (namespace == null) {
      throw new IllegalStateException("no access check ran for " + ctx.path());
    }
    Caller caller = caller(ctx);
    if (!caller.mayUse(namespace)) {
      throw new ApiException(
          403, "forbidden", caller.name() + "'s token does not reach namespace " + namespace);
    }
    return namespace;
  }

  /**
   * The stored id of a task, group or flow run the path names in the request's namespace: a plain
   * id is qualified with it; an id already qualified (as the API's answers show them) must be of
   * it.
   *
   * @throws ApiException 404 for an id of another namespace (it does not exist here)
   */
  static String storedId(Context ctx, String id) {
    Namespace namespace = namespace(ctx);
    int at = id.indexOf(Namespace.SEPARATOR);
    if (at < 0) {
      return namespace.qualify(id);
    }
    if (namespace.isDefault() || !id.substring(0, at).equals(namespace.name())) {
      throw ApiException.notFound("no " + id + " in namespace " + namespace);
    }
    return id;
  }

  /** Refuses a caller whose token does not reach every namespace: AX-wide views and switches. */
  static void requireEveryNamespace(Context ctx, String what) {
    Caller caller = caller(ctx);
    if (!caller.everyNamespace()) {
      throw new ApiException(
          403,
          "forbidden",
          what
              + " needs a token of every namespace; "
              + caller.name()
              + "'s is scoped to "
              + caller.namespaces());
    }
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

  /**
   * Refuses a change a page of another site could have sent with the user's browser: a change must
   * be {@code application/json} (a cross-site form or a no-preflight fetch cannot send that, and
   * this server answers no CORS preflight), and a browser's {@code Origin}, when sent, must be this
   * server's own.
   */
  private static void refuseCrossSite(Context ctx) {
    String type = ctx.contentType();
    if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      throw new ApiException(
          415, "unsupported_media_type", "a change is sent as Content-Type: application/json");
    }
    String origin = ctx.header("Origin");
    String host = ctx.header("Host");
    if (origin != null
        && !(host != null
            && (origin.equals("http://" + host) || origin.equals("https://" + host)))) {
      throw new ApiException(403, "cross_origin", "a change from another origin is refused");
    }
  }

  private static Namespace namespaceAsked(Context ctx) {
    String asked = ctx.queryParam("namespace");
    if (asked == null || asked.isEmpty()) {
      return Namespace.DEFAULT;
    }
    return Namespace.parse(asked)
        .orElseThrow(
            () ->
                ApiException.badRequest(
                    "namespace must match "
                        + Namespace.NAME.pattern()
                        + ": "
                        + dev.ax.common.contract.Echo.of(asked)));
  }

  /** The check before every request: rate, token, namespace, role, origin. Thread-safe. */
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
      ctx.attribute(NAMESPACE, namespaceAsked(ctx));
      if (caller.heartbeatOnly() && !PoolRoutes.isHeartbeat(ctx)) {
        throw new ApiException(403, "forbidden", caller.name() + " has the heartbeat role only");
      }
      if (!ctx.method().name().equals("GET")) {
        if (!caller.mayOperate() && !caller.heartbeatOnly()) {
          throw new ApiException(403, "forbidden", caller.name() + " has the read role only");
        }
        refuseCrossSite(ctx);
      }
      ctx.attribute(CALLER, caller);
    }
  }
}
