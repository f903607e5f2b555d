package dev.ax.cli.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The HTTP endpoints the demo's HTTP tasks call, on 127.0.0.1 and a free port: {@value #OK} answers
 * 200, {@value #FAIL} answers 500 with a short body, {@value #FLAKY} answers 503 until {@link #fix}
 * is called and 200 after. The JDK's {@link HttpServer}; requests are handled on its dispatcher
 * thread; the counter and the flag are thread-safe.
 */
public final class DemoEndpoints implements AutoCloseable {

  public static final String OK = "/ok";
  private static final String LOOPBACK = "127.0.0.1";
  public static final String FAIL = "/fail";
  public static final String FLAKY = "/flaky";
  static final String FAIL_BODY = "demo endpoint fails on purpose";
  static final String FLAKY_BODY = "demo endpoint is down until the demo fixes it";

  private final HttpServer server;
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicBoolean fixed = new AtomicBoolean();

  private DemoEndpoints(HttpServer server) {
    this.server = server;
  }

  public static DemoEndpoints start() {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(LOOPBACK, 0), 16);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the demo HTTP endpoints", e);
    }
    DemoEndpoints endpoints = new DemoEndpoints(server);
    server.createContext(OK, exchange -> endpoints.answer(exchange, 200, "ok"));
    server.createContext(FAIL, exchange -> endpoints.answer(exchange, 500, FAIL_BODY));
    server.createContext(
        FLAKY,
        exchange -> {
          boolean up = endpoints.fixed.get();
          endpoints.answer(exchange, up ? 200 : 503, up ? "ok" : FLAKY_BODY);
        });
    server.start();
    return endpoints;
  }

  private void answer(HttpExchange exchange, int status, String body) throws IOException {
    requests.incrementAndGet();
    exchange.getRequestBody().readAllBytes();
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** {@code http://127.0.0.1:<port>}. */
  public URI baseUri() {
    return URI.create("http://" + LOOPBACK + ":" + server.getAddress().getPort());
  }

  /** The host to put on AX's HTTP allow-list. */
  public String host() {
    return LOOPBACK;
  }

  /** From now on {@value #FLAKY} answers 200. */
  public void fix() {
    fixed.set(true);
  }

  public int requestCount() {
    return requests.get();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
