package dev.ax.api.http;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stage's {@code /metrics} for the console's overview in a test: the exposition format AX's
 * stages serve, whose counters grow by 100 attempts per read, so that two reads make a rate.
 */
final class PrometheusStub implements AutoCloseable {

  private final HttpServer server;
  private final AtomicInteger reads = new AtomicInteger();

  private PrometheusStub(HttpServer server) {
    this.server = server;
  }

  static PrometheusStub start() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    PrometheusStub stub = new PrometheusStub(server);
    server.createContext(
        "/metrics",
        exchange -> {
          int n = stub.reads.incrementAndGet();
          byte[] body =
              String.join(
                      "\n",
                      "# TYPE ax_dispatcher_succeeded_total counter",
                      "ax_dispatcher_succeeded_total " + 100 * n,
                      "ax_dispatcher_failed_total " + 3 * n,
                      "ax_ticker_fired_total " + 103 * n,
                      "ax_dispatcher_start_lateness_ms_bucket{le=\"10.0\"} " + 90 * n,
                      "ax_dispatcher_start_lateness_ms_bucket{le=\"50.0\"} " + 99 * n,
                      "ax_dispatcher_start_lateness_ms_bucket{le=\"+Inf\"} " + 100 * n,
                      "ax_dispatcher_run_duration_ms_bucket{executor=\"HTTP\",le=\"100.0\"} "
                          + 60 * n,
                      "ax_dispatcher_run_duration_ms_bucket{executor=\"HTTP\",le=\"+Inf\"} "
                          + 60 * n,
                      "ax_dispatcher_run_duration_ms_bucket{executor=\"IN_PROCESS\",le=\"100.0\"} "
                          + 40 * n,
                      "ax_dispatcher_run_duration_ms_bucket{executor=\"IN_PROCESS\",le=\"+Inf\"} "
                          + 40 * n,
                      "ax_backlog_instances{status=\"RUNNING\"} 4.0",
                      "ax_backlog_oldest_due_age_ms 120.0",
                      "ax_ticker_leader 1.0",
                      "ax_ticker_epoch 7.0",
                      "")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    return stub;
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/metrics");
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
