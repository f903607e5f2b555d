package dev.ax.common.stage;

import com.sun.net.httpserver.HttpServer;
import dev.ax.common.config.ConfigException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Serves {@code GET /metrics} in Prometheus text format from the JDK's HTTP server. */
public final class MetricsEndpoint implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);

  private final HttpServer server;

  private MetricsEndpoint(HttpServer server) {
    this.server = server;
  }

  /**
   * @param bind host:port, e.g. 127.0.0.1:9400 (port 0 picks a free one)
   * @throws IllegalStateException naming the address when it cannot be bound
   */
  public static MetricsEndpoint start(String bind, PrometheusMeterRegistry registry) {
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
    server.createContext(
        "/metrics",
        exchange -> {
          byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
          exchange
              .getResponseHeaders()
              .add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    log.info("Metrics at http://{}:{}/metrics", host, server.getAddress().getPort());
    return new MetricsEndpoint(server);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
