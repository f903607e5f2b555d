package dev.ax.systemtest;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A dead-letter webhook on 127.0.0.1 that answers 204 and keeps every body it was sent, for the
 * tests that check the dead-letter stage's alerts. Thread-safe: the server's threads add, the test
 * reads.
 */
final class AlertWebhook implements AutoCloseable {

  private final List<String> alerts = new CopyOnWriteArrayList<>();
  private final HttpServer server;

  private AlertWebhook(HttpServer server) {
    this.server = server;
  }

  /** A started webhook on a free port. */
  static AlertWebhook start() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    AlertWebhook webhook = new AlertWebhook(server);
    server.createContext(
        "/alert",
        exchange -> {
          try (InputStream body = exchange.getRequestBody()) {
            webhook.alerts.add(new String(body.readAllBytes(), StandardCharsets.UTF_8));
          }
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    server.start();
    return webhook;
  }

  /** The value for {@code AX_DEADLETTER_WEBHOOK_URL}. */
  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/alert";
  }

  /** Every body received so far, oldest first (a live view). */
  List<String> alerts() {
    return alerts;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
