package dev.ax.common.stage;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.ax.common.config.ConfigException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code GET /metrics} in Prometheus text format, and the probes: {@code /health/live} (200
 * while the process serves at all) and {@code /health/ready} (200 when every readiness check
 * passes, else 503; both with the checks' outcomes as JSON), from the JDK's HTTP server. A probe
 * reads the last round of the checks ({@link Readiness}), so it never waits on the database or the
 * broker.
 *
 * <p>The server has {@link #THREADS} threads of its own, and no client holds one long: a request
 * not read within {@link #REQUEST_READ_TIMEOUT}, or an exchange not done within {@link
 * #EXCHANGE_TIMEOUT}, is dropped ({@link ExchangeThreads}). So a slow or stuck client (one that
 * sends half a request and waits) cannot make {@code /health/live} fail.
 */
public final class MetricsEndpoint implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);

  /** Exchanges served at once. */
  public static final int THREADS = 4;

  /** How long a client may take to send its request. */
  public static final Duration REQUEST_READ_TIMEOUT = Duration.ofSeconds(2);

  /** How long one exchange may hold a thread in all (a scrape of a large registry included). */
  public static final Duration EXCHANGE_TIMEOUT = Duration.ofSeconds(30);

  private final HttpServer server;
  private final ExchangeThreads threads;

  private MetricsEndpoint(HttpServer server, ExchangeThreads threads) {
    this.server = server;
    this.threads = threads;
  }

  /**
   * @param bind host:port, e.g. 127.0.0.1:9400 (port 0 picks a free one)
   * @throws IllegalStateException naming the address when it cannot be bound
   */
  public static MetricsEndpoint start(
      String bind, PrometheusMeterRegistry registry, Readiness readiness) {
    return start(bind, registry, readiness, REQUEST_READ_TIMEOUT, EXCHANGE_TIMEOUT);
  }

  /** With the timeouts given: for tests. */
  static MetricsEndpoint start(
      String bind,
      PrometheusMeterRegistry registry,
      Readiness readiness,
      Duration requestReadTimeout,
      Duration exchangeTimeout) {
    int colon = bind.lastIndexOf(':');
    if (colon < 0) {
      throw new ConfigException("AX_METRICS_BIND must be host:port or off: " + bind);
    }
    String host = bind.substring(0, colon);
    int port;
    try {
      port = Integer.parseInt(bind.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new ConfigException("AX_METRICS_BIND must be host:port or off: " + bind);
    }
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(host, port), 16);
    } catch (IOException | IllegalArgumentException e) {
      // A port in use or out of range, or a host this machine does not have: the operator's to fix.
      throw new ConfigException(
          "AX_METRICS_BIND="
              + bind
              + " cannot be bound (in use, or not an address of this machine): "
              + e.getMessage());
    }
    ExchangeThreads threads =
        new ExchangeThreads(THREADS, requestReadTimeout, exchangeTimeout, System::nanoTime);
    server.setExecutor(threads);
    serve(
        server,
        threads,
        "/metrics",
        exchange ->
            answer(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
    serve(
        server,
        threads,
        "/health/live",
        exchange -> answer(exchange, 200, JSON, "{\"status\":\"live\"}"));
    serve(
        server,
        threads,
        "/health/ready",
        exchange -> {
          Readiness.Report report = readiness.report();
          answer(exchange, report.ready() ? 200 : 503, JSON, report.json());
        });
    server.start();
    log.info(
        "Metrics at http://{}:{}/metrics, probes at /health/live and /health/ready",
        host,
        server.getAddress().getPort());
    return new MetricsEndpoint(server, threads);
  }

  /** Serves {@code path} with {@code handler}, which runs once the request is read. */
  private static void serve(
      HttpServer server, ExchangeThreads threads, String path, HttpHandler handler) {
    server.createContext(
        path,
        exchange -> {
          threads.requestRead();
          handler.handle(exchange);
        });
  }

  private static final String JSON = "application/json; charset=utf-8";

  private static void answer(HttpExchange exchange, int status, String contentType, String text)
      throws IOException {
    byte[] body = text.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", contentType);
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    threads.close();
  }
}
