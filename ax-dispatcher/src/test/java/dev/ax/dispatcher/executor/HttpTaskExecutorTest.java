package dev.ax.dispatcher.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SystemClock;
import dev.ax.dispatcher.executor.net.HttpTargetPolicy;
import dev.ax.dispatcher.executor.net.PortList;
import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTP executor against a real JDK {@link HttpServer} on loopback, without an AX stage. Calls
 * that must hang use {@link SilentServer}, a raw socket that reads the request, never answers, and
 * reports when the client closes the connection.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HttpTaskExecutorTest {

  private static final Duration GENEROUS = Duration.ofSeconds(30);
  private static final int MAX_EXCERPT_CHARS = 64;

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicReference<Headers> lastHeaders = new AtomicReference<>();
  private final AtomicReference<String> lastMethod = new AtomicReference<>();
  private final AtomicReference<String> lastBody = new AtomicReference<>();
  private final AtomicReference<URI> lastUri = new AtomicReference<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  /** An executor for {@code allowedHosts}, closed after the test. */
  private HttpTaskExecutor executor(String... allowedHosts) {
    HttpTaskExecutor executor =
        new HttpTaskExecutor(new HostAllowList(List.of(allowedHosts)), MAX_EXCERPT_CHARS);
    closeables.add(executor);
    return executor;
  }

  /** A server answering every request with {@code status} and {@code body}, recording the call. */
  private URI server(int status, String body) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          requests.incrementAndGet();
          lastHeaders.set(exchange.getRequestHeaders());
          lastMethod.set(exchange.getRequestMethod());
          lastUri.set(exchange.getRequestURI());
          lastBody.set(
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
          }
        });
    server.start();
    closeables.add(() -> server.stop(0));
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
  }

  private static ExecutionContext context(ExecutorSpec spec, Duration timeout) {
    TaskSpec task =
        TestTasks.spec(
            "task-1",
            "default",
            Trigger.Once.after(Duration.ZERO),
            spec,
            timeout,
            RetryPolicy.DEFAULT,
            Map.of());
    return new AttemptContext(
        task, "task-1@1000", 2, Instant.ofEpochMilli(1000), "trace-1", Instant.now().plus(timeout));
  }

  private static ExecutionContext withParams(ExecutorSpec spec, Map<String, String> params) {
    TaskSpec task =
        TestTasks.spec(
            "task-1",
            "default",
            Trigger.Once.after(Duration.ZERO),
            spec,
            GENEROUS,
            RetryPolicy.DEFAULT,
            params);
    return new AttemptContext(
        task,
        "task-1@1000",
        1,
        Instant.ofEpochMilli(1000),
        "trace-1",
        Instant.now().plus(GENEROUS));
  }

  @Test
  void paramsGoAsAJsonBodyWhenNoBodyIsGivenAsAQueryForGetAndNotAtAllBesideABody() throws Exception {
    URI url = server(200, "");
    Map<String, String> params = Map.of("b", "x y", "a", "1&2");

    executor("127.0.0.1").execute(withParams(ExecutorSpec.http(url, null, Map.of(), null), params));
    assertThat(lastMethod).hasValue("POST");
    assertThat(lastBody).hasValue("{\"a\":\"1&2\",\"b\":\"x y\"}");
    assertThat(lastHeaders.get().getFirst("Content-Type")).isEqualTo("application/json");

    executor("127.0.0.1")
        .execute(withParams(ExecutorSpec.http(url, "GET", Map.of(), null), params));
    assertThat(lastMethod).hasValue("GET");
    assertThat(lastUri.get().getRawQuery()).isEqualTo("a=1%262&b=x+y");
    assertThat(lastBody).hasValue("");

    executor("127.0.0.1")
        .execute(withParams(ExecutorSpec.http(url, null, Map.of(), "{\"own\":true}"), params));
    assertThat(lastBody).hasValue("{\"own\":true}");
    assertThat(lastUri.get().getRawQuery()).isNull();
  }

  @Test
  void aQueryIsAppendedToTheUrlsOwnAndBeforeItsFragment() {
    assertThat(HttpTaskExecutor.withQuery(URI.create("https://h/p?x=1#top"), Map.of("a", "é")))
        .hasToString("https://h/p?x=1&a=%C3%A9#top");
  }

  private static ExecutionContext context(URI url) {
    return context(ExecutorSpec.http(url, null, Map.of(), "{}"), GENEROUS);
  }

  @Test
  void a2xxIsSuccessAndTheRequestCarriesTraceAndIdempotencyHeaders() throws Exception {
    URI url = server(204, "");
    ExecutorSpec spec =
        ExecutorSpec.http(
            url,
            null,
            Map.of("X-Custom", "yes", "Idempotency-Key", "forged", "x-ax-trace-id", "forged"),
            "{\"k\":1}");

    ExecutionResult result = executor("127.0.0.1").execute(context(spec, GENEROUS));

    assertThat(result).isEqualTo(ExecutionResult.ok("HTTP 204"));
    assertThat(requests).hasValue(1);
    assertThat(lastMethod).hasValue("POST");
    assertThat(lastBody).hasValue("{\"k\":1}");
    Headers headers = lastHeaders.get();
    // The task cannot override the headers AX sets.
    assertThat(headers.get("X-AX-Trace-Id")).containsExactly("trace-1");
    assertThat(headers.get("Idempotency-Key")).containsExactly("task-1@1000");
    assertThat(headers.get("X-AX-Instance-Id")).containsExactly("task-1@1000");
    assertThat(headers.get("X-AX-Attempt")).containsExactly("2");
    assertThat(headers.get("X-Custom")).containsExactly("yes");
  }

  @Test
  void a5xxFailsRetryablyWithTheStatusAndABoundedExcerptOfTheBody() throws Exception {
    URI url = server(500, "database on fire\n" + "smoke ".repeat(2_000));

    ExecutionResult result = executor("127.0.0.1").execute(context(url));

    assertThat(result.succeeded()).isFalse();
    assertThat(result.retryable()).isTrue();
    assertThat(result.error())
        .startsWith("HTTP 500: database on fire smoke")
        .doesNotContain("\n")
        .hasSizeLessThanOrEqualTo("HTTP 500: ".length() + MAX_EXCERPT_CHARS + "…".length());
  }

  @Test
  void a4xxOtherThan408And429IsPermanent() throws Exception {
    ExecutionResult notFound = executor("127.0.0.1").execute(context(server(404, "no such hook")));
    ExecutionResult tooMany = executor("127.0.0.1").execute(context(server(429, "")));

    assertThat(notFound)
        .isEqualTo(
            ExecutionResult.permanentFailure("HTTP 404: no such hook")
                .withOutput("HTTP 404\n\nno such hook"));
    assertThat(tooMany).isEqualTo(ExecutionResult.failure("HTTP 429").withOutput("HTTP 429"));
  }

  @Test
  void aRefusedConnectionIsARetryableFailureThatSaysSo() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    URI url = URI.create("http://127.0.0.1:" + port + "/hook");

    ExecutionResult result = executor("127.0.0.1").execute(context(url));

    assertThat(result.succeeded()).isFalse();
    assertThat(result.retryable()).isTrue();
    assertThat(result.error()).startsWith("HTTP call failed").containsIgnoringCase("connect");
  }

  @Test
  void aServerThatNeverAnswersIsAbandonedAtTheDeadlineAndTheConnectionClosed() throws Exception {
    SilentServer server = silentServer();
    ExecutionContext context = postingTo(server, Duration.ofSeconds(1));

    assertThatThrownBy(() -> executor("127.0.0.1").execute(context))
        .isInstanceOf(HttpTimeoutException.class);

    assertThat(server.requestReceived).succeedsWithin(GENEROUS);
    assertThat(server.closedByClient).succeedsWithin(GENEROUS);
  }

  @Test
  void interruptingTheCallerAbortsTheCallAndClosesTheConnection() throws Exception {
    SilentServer server = silentServer();
    ExecutionContext context = postingTo(server, Duration.ofSeconds(60));
    InterruptibleAttempt attempt = InterruptibleAttempt.start(executor("127.0.0.1"), context);
    closeables.add(attempt);
    assertThat(server.requestReceived).succeedsWithin(GENEROUS);

    long interruptedAt = System.nanoTime();
    attempt.interrupt();

    assertThat(attempt.thrown(GENEROUS)).isInstanceOf(InterruptedException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - interruptedAt))
        .as("the call returns promptly, not at its 60 s deadline")
        .isLessThan(Duration.ofSeconds(5));
    assertThat(server.closedByClient).succeedsWithin(GENEROUS);
  }

  @Test
  void aHostOffTheAllowListIsRefusedBeforeAnyConnection() throws Exception {
    URI url = server(200, "");

    ExecutionResult result = executor("allowed.example", "*.allowed.example").execute(context(url));

    assertThat(result.succeeded()).isFalse();
    assertThat(result.retryable()).isFalse();
    assertThat(result.error()).contains("127.0.0.1", "allow-list");
    assertThat(requests).hasValue(0);
  }

  /**
   * Accepts one connection, reads the request head, never answers, and completes {@link
   * #closedByClient} when the client closes its end.
   */
  /** A {@link SilentServer} closed after the test. */
  private SilentServer silentServer() throws IOException {
    SilentServer server = new SilentServer();
    closeables.add(server);
    return server;
  }

  /** An attempt that POSTs {@code {}} to {@code server} within {@code timeout}. */
  private static ExecutionContext postingTo(SilentServer server, Duration timeout) {
    return context(ExecutorSpec.http(server.url(), "POST", Map.of(), "{}"), timeout);
  }

  private static final class SilentServer implements AutoCloseable {

    final CompletableFuture<Void> requestReceived = new CompletableFuture<>();
    final CompletableFuture<Void> closedByClient = new CompletableFuture<>();
    private final ServerSocket listener;
    private final AtomicReference<Socket> accepted = new AtomicReference<>();

    SilentServer() throws IOException {
      listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
      Thread thread = new Thread(this::serve, "silent-server");
      thread.setDaemon(true);
      thread.start();
    }

    URI url() {
      return URI.create("http://127.0.0.1:" + listener.getLocalPort() + "/hang");
    }

    private void serve() {
      try (Socket socket = listener.accept()) {
        accepted.set(socket);
        InputStream in = socket.getInputStream();
        int matched = 0; // bytes of "\r\n\r\n" seen in a row
        byte[] end = {'\r', '\n', '\r', '\n'};
        int b;
        while (matched < end.length && (b = in.read()) != -1) {
          matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        requestReceived.complete(null);
        while (in.read() != -1) {
          // the body, then nothing until the client gives up
        }
        closedByClient.complete(null);
      } catch (IOException e) {
        // A reset is the client closing too.
        closedByClient.complete(null);
      }
    }

    @Override
    public void close() throws IOException {
      listener.close();
      Socket socket = accepted.get();
      if (socket != null) {
        socket.close();
      }
    }
  }

  @Test
  void aNameThatResolvesToLoopbackIsRefusedWithoutACall() throws Exception {
    URI direct = server(200, "ok");
    // localhost is on the allow-list by name, and resolves to the server's loopback address.
    URI byName = URI.create("http://localhost:" + direct.getPort() + "/hook");
    HttpTaskExecutor executor =
        new HttpTaskExecutor(
            new HttpTargetPolicy(
                new HostAllowList(List.of("localhost")),
                List.of(),
                PortList.parse(List.of("*")),
                false,
                host -> new InetAddress[] {InetAddress.getByName("127.0.0.1")}),
            Optional.empty(),
            MAX_EXCERPT_CHARS,
            new SystemClock());
    closeables.add(executor);
    ExecutionResult result = executor.execute(context(byName));
    assertThat(result.succeeded()).isFalse();
    assertThat(result.retryable()).as("a refusal is no reason to try again").isFalse();
    assertThat(result.error()).contains("resolves to 127.0.0.1", "127.0.0.0/8");
    assertThat(requests).hasValue(0);
  }

  @Test
  void aRedirectIsNotFollowed() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          requests.incrementAndGet();
          exchange.getResponseHeaders().add("Location", "http://169.254.169.254/latest/meta-data");
          exchange.sendResponseHeaders(302, -1);
          exchange.close();
        });
    server.start();
    closeables.add(() -> server.stop(0));
    URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");

    ExecutionResult result = executor("127.0.0.1").execute(context(url));

    assertThat(result.succeeded()).isFalse();
    assertThat(result.error()).startsWith("HTTP 302");
    assertThat(requests).as("only the call itself, no request to the Location").hasValue(1);
  }

  @Test
  void aStoredHeaderTheClientRefusesFailsForGoodWithoutItsValue() throws Exception {
    URI url = server(200, "ok");
    ExecutorSpec spec =
        ExecutorSpec.http(url, null, Map.of("X-Token", "s3cret\r\nX-Admin: 1"), "{}");

    ExecutionResult result = executor("127.0.0.1").execute(context(spec, GENEROUS));

    assertThat(result.succeeded()).isFalse();
    assertThat(result.retryable()).isFalse();
    assertThat(result.error()).contains("executor.headers.X-Token").doesNotContain("s3cret");
    assertThat(requests).hasValue(0);
  }
}
