package dev.ax.systemtest;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The endpoint of a test's HTTP tasks, on loopback: records every call it gets, with the instance
 * id, attempt and idempotency key that AX's HTTP executor sends, and the wall-clock time the call
 * arrived. Answers 200, except under {@value #FAIL_FIRST_ATTEMPT} where the first attempt gets 503,
 * so that those tasks go through the retry stage.
 *
 * <p>Thread-safe.
 */
final class HookRecorder implements AutoCloseable {

  /** Path prefix of calls that are answered 200. */
  static final String OK = "/hook/";

  /** Path prefix of calls whose first attempt is answered 503 (retryable), later ones 200. */
  static final String FAIL_FIRST_ATTEMPT = "/hook-fail-first/";

  /**
   * One call as it arrived.
   *
   * @param attempt the {@code X-AX-Attempt} header, -1 if absent or not a number
   * @param idempotencyKey the {@code Idempotency-Key} header, null if absent
   */
  record Call(
      String path, String instanceId, int attempt, String idempotencyKey, long arrivedAtMs) {}

  private final HttpServer server;
  private final ExecutorService workers;
  private final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();

  private HookRecorder(HttpServer server, ExecutorService workers) {
    this.server = server;
    this.workers = workers;
  }

  static HookRecorder start() throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
    ExecutorService workers = Executors.newFixedThreadPool(8);
    HookRecorder recorder = new HookRecorder(server, workers);
    server.createContext("/", recorder::handle);
    server.setExecutor(workers);
    server.start();
    return recorder;
  }

  private void handle(HttpExchange exchange) throws IOException {
    long arrivedAtMs = System.currentTimeMillis();
    try (exchange;
        InputStream body = exchange.getRequestBody()) {
      body.readAllBytes();
      String path = exchange.getRequestURI().getPath();
      int attempt = parseAttempt(exchange.getRequestHeaders().getFirst("X-AX-Attempt"));
      calls.add(
          new Call(
              path,
              exchange.getRequestHeaders().getFirst("X-AX-Instance-Id"),
              attempt,
              exchange.getRequestHeaders().getFirst("Idempotency-Key"),
              arrivedAtMs));
      int status = path.startsWith(FAIL_FIRST_ATTEMPT) && attempt <= 1 ? 503 : 200;
      exchange.sendResponseHeaders(status, -1);
    }
  }

  private static int parseAttempt(String header) {
    try {
      return header == null ? -1 : Integer.parseInt(header.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** {@code http://127.0.0.1:<port>}. */
  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Every call so far, in arrival order (roughly: calls handled at once may swap). */
  List<Call> calls() {
    return List.copyOf(calls);
  }

  @Override
  public void close() {
    server.stop(0);
    workers.shutdownNow();
  }
}
