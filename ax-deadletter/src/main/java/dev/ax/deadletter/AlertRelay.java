package dev.ax.deadletter;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.ax.common.contract.AxJson;
import dev.ax.common.thread.DaemonThreads;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The alert relay: an HTTP endpoint, {@code POST /alerts/<receiver>}, that takes Alertmanager's
 * webhook payload ({@link AlertGroup}), writes it for the receiver's robot ({@link
 * AlertGroupMessage} in the receiver's {@link AlertFormat}) and posts it through an {@link
 * OutboundWebhook} of its own. Alertmanager speaks only its own JSON; this turns the rules' alerts
 * into the Slack, DingTalk, WeCom or generic messages the dead letters already use.
 *
 * <p>Answers: 200 once the message is queued; 400 for a body that is not a version-4 payload (the
 * reason in {@code message}); 401 without the bearer token, when one is configured; 404 for an
 * unknown path or receiver; 405 for a method but POST; 413 for a body over {@link
 * #MAX_REQUEST_BYTES}; 415 for a body that is not JSON; 503 while the outbound queue is full
 * (Alertmanager retries a 5xx). Errors are JSON {@code {code, message}}. Every failure of a request
 * ends in its own answer (a 500 at worst): one bad request never disturbs another or the stage.
 *
 * <p>Why the JDK's {@code com.sun.net.httpserver} and not Javalin (ax-api's server): one POST path
 * on an internal port needs no routing, and Javalin would bring Jetty into the dead-letter stage's
 * class path and image layer for it. The server's handler threads are bounded: {@link #THREADS}
 * threads, {@link #QUEUED_CONNECTIONS} exchanges waiting, the rest dropped (their connection closed
 * when the client gives up).
 *
 * <p>Threading: the server's dispatcher thread accepts; {@link #THREADS} handler threads read,
 * check and render; the outbound thread posts. The handler touches no shared state but the counters
 * and the outbound queue, both thread-safe. {@link #close()} stops accepting, then lets queued
 * posts go out.
 */
final class AlertRelay implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AlertRelay.class);

  /** The path prefix; the rest of the path is the receiver's name. */
  static final String PATH = "/alerts/";

  /** Largest request body read: Alertmanager's max_alerts keeps a payload far below it. */
  static final int MAX_REQUEST_BYTES = 256 * 1024;

  static final int THREADS = 2;
  static final int QUEUED_CONNECTIONS = 32;

  private final AlertRelayConfig config;
  private final OutboundWebhook outbound =
      new OutboundWebhook("Alert relay robot", "ax-alert-relay-out");
  private final HttpServer server;
  private final ThreadPoolExecutor handlers;
  private final Counter sent;
  private final Counter failed;
  private final Counter refused;
  private final Counter dropped;

  /**
   * Binds {@code config.bind()} and starts serving.
   *
   * @throws IOException when the address cannot be bound
   * @throws IllegalArgumentException when the config has no bind address
   */
  AlertRelay(AlertRelayConfig config, MeterRegistry meters) throws IOException {
    this.config = config;
    InetSocketAddress bind =
        config.bind().orElseThrow(() -> new IllegalArgumentException("the relay is off"));
    Meters counters = Meters.of(meters);
    this.sent = counters.sent();
    this.failed = counters.failed();
    this.refused = counters.refused();
    this.dropped = counters.dropped();
    this.handlers =
        new ThreadPoolExecutor(
            THREADS,
            THREADS,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(QUEUED_CONNECTIONS),
            DaemonThreads.named("ax-alert-relay"),
            new ThreadPoolExecutor.DiscardPolicy());
    this.server = HttpServer.create(bind, 0);
    server.setExecutor(handlers);
    server.createContext("/", this::handle);
    server.start();
    if (!bind.getAddress().isLoopbackAddress() && config.token().isEmpty()) {
      log.warn(
          "Alert relay listens on {} without AX_ALERT_RELAY_TOKEN: anyone who reaches the port"
              + " can post to the robots",
          bind);
    }
  }

  /**
   * The relay's counters, registered by the stage whether the relay runs or not (so every stage
   * scrape shows them).
   */
  record Meters(Counter sent, Counter failed, Counter refused, Counter dropped) {
    static Meters of(MeterRegistry meters) {
      return new Meters(
          meters.counter("ax.alert.relay.sent"),
          meters.counter("ax.alert.relay.failed"),
          meters.counter("ax.alert.relay.refused"),
          meters.counter("ax.alert.relay.dropped"));
    }
  }

  /** The address the relay listens on (its port, when configured as 0). */
  InetSocketAddress address() {
    return server.getAddress();
  }

  private void handle(HttpExchange exchange) {
    try (exchange) {
      Answer answer;
      try {
        answer = answer(exchange);
      } catch (RuntimeException | IOException e) {
        log.warn("Alert relay request failed: {}", e.toString());
        answer = new Answer(500, "the relay could not handle the request");
      }
      if (answer.status() / 100 == 4) {
        refused.increment();
      }
      respond(exchange, answer);
    } catch (IOException | RuntimeException e) {
      // The client went away while we answered: nothing left to do for this exchange.
      log.debug("Alert relay answer not delivered: {}", e.toString());
    }
  }

  private record Answer(int status, String message) {}

  private Answer answer(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    if (!path.startsWith(PATH)) {
      return new Answer(404, "POST Alertmanager's webhook payload to " + PATH + "<receiver>");
    }
    if (!exchange.getRequestMethod().equals("POST")) {
      exchange.getResponseHeaders().set("Allow", "POST");
      return new Answer(405, "only POST");
    }
    if (!authorized(exchange.getRequestHeaders().getFirst("Authorization"))) {
      exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
      return new Answer(401, "a bearer token is required");
    }
    String receiver = path.substring(PATH.length());
    Optional<AlertRelayConfig.Target> target =
        AlertRelayConfig.RECEIVER_NAME.matcher(receiver).matches()
            ? config.target(receiver)
            : Optional.empty();
    if (target.isEmpty()) {
      return new Answer(404, "no robot for this receiver");
    }
    String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
    if (contentType == null
        || !contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      return new Answer(415, "Content-Type must be application/json");
    }
    byte[] body = readBounded(exchange.getRequestBody());
    if (body == null) {
      return new Answer(413, "the body is over " + MAX_REQUEST_BYTES + " bytes");
    }
    AlertGroup group;
    try {
      group = AlertGroup.parse(body);
    } catch (IllegalArgumentException e) {
      return new Answer(400, "not Alertmanager's webhook payload: " + e.getMessage());
    }
    byte[] message = new AlertGroupMessage(group, config.maxAlerts()).body(target.get().format());
    String what = "receiver " + receiver + " (" + group.alerts().get(0).name() + ")";
    if (!outbound.post(target.get().url(), message, what, sent, failed)) {
      dropped.increment();
      return new Answer(503, "the relay's outbound queue is full; retry later");
    }
    return new Answer(200, "queued");
  }

  /** Constant-time comparison, so the answer's timing tells nothing about the token. */
  private boolean authorized(String header) {
    if (config.token().isEmpty()) {
      return true;
    }
    byte[] expected = ("Bearer " + config.token().get()).getBytes(StandardCharsets.UTF_8);
    byte[] given = header == null ? new byte[0] : header.getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(expected, given);
  }

  /** The body, or null when it is longer than {@link #MAX_REQUEST_BYTES}; never reads more. */
  private static byte[] readBounded(InputStream in) throws IOException {
    byte[] body = in.readNBytes(MAX_REQUEST_BYTES + 1);
    return body.length > MAX_REQUEST_BYTES ? null : body;
  }

  private static void respond(HttpExchange exchange, Answer answer) throws IOException {
    byte[] json =
        AxJson.write(
            Map.of(
                "code",
                answer.status() == 200 ? "ok" : "http_" + answer.status(),
                "message",
                answer.message()));
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(answer.status(), json.length);
    exchange.getResponseBody().write(json);
  }

  @Override
  public void close() {
    server.stop(0);
    DaemonThreads.stop(handlers, OutboundWebhook.TIMEOUT);
    outbound.close();
  }
}
