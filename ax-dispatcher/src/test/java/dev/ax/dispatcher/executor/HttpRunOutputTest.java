package dev.ax.dispatcher.executor;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SystemClock;
import dev.ax.dispatcher.executor.net.CallSigner;
import dev.ax.dispatcher.executor.net.CheckedHttpClient;
import dev.ax.dispatcher.executor.net.HttpTargetPolicy;
import dev.ax.dispatcher.executor.net.PortList;
import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The output an HTTP run says (status, the headers the task lists, the start of the body), on
 * success and failure, against a real JDK {@link HttpServer} on loopback.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HttpRunOutputTest {

  private static final Duration GENEROUS = Duration.ofSeconds(30);
  private static final String SIGNING_SECRET = "s".repeat(16) + "0123456789abcdef";

  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  /** A server answering {@code status}, {@code body} and a few headers, credentials among them. */
  private URI server(int status, byte[] body) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          exchange.getResponseHeaders().add("X-Request-Id", "r-42");
          exchange.getResponseHeaders().add("Set-Cookie", "session=abc");
          exchange.getResponseHeaders().add("X-Unlisted", "not shown");
          exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    closeables.add(() -> server.stop(0));
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
  }

  private HttpTaskExecutor executor(Optional<CallSigner> signer) {
    HttpTaskExecutor executor =
        new HttpTaskExecutor(
            new HttpTargetPolicy(
                new HostAllowList(List.of("127.0.0.1")),
                List.of(),
                PortList.parse(List.of("*")),
                false,
                InetAddress::getAllByName),
            signer,
            64,
            new SystemClock());
    closeables.add(executor);
    return executor;
  }

  private static ExecutionContext context(URI url, List<String> outputHeaders) {
    ExecutorSpec spec = new ExecutorSpec.Http(url, "POST", Map.of(), "{}", outputHeaders);
    TaskSpec task =
        TestTasks.spec(
            "task-1",
            "default",
            Trigger.Once.after(Duration.ZERO),
            spec,
            GENEROUS,
            RetryPolicy.DEFAULT,
            Map.of());
    return new AttemptContext(
        task,
        "task-1@1000",
        1,
        Instant.ofEpochMilli(1000),
        "trace-1",
        Instant.now().plus(GENEROUS));
  }

  @Test
  void aSuccessSaysItsStatusTheListedHeadersAndTheStartOfALongBody() throws Exception {
    byte[] body = ("{\"done\":true}" + "x".repeat(200_000)).getBytes(StandardCharsets.UTF_8);
    URI url = server(200, body);

    ExecutionResult result =
        executor(Optional.empty())
            .execute(context(url, List.of("X-Request-Id", "Set-Cookie", "X-Absent")));

    assertThat(result.succeeded()).as(String.valueOf(result)).isTrue();
    assertThat(result.output())
        .as("a credential's header is never shown, an absent one is left out")
        .startsWith("HTTP 200\nX-Request-Id: r-42\n\n{\"done\":true}xxx")
        .doesNotContain("Set-Cookie", "session", "X-Unlisted")
        .hasSize("HTTP 200\nX-Request-Id: r-42\n\n".length() + HttpTaskExecutor.OUTPUT_BODY_BYTES);
    assertThat(HttpTaskExecutor.statusOf(result.output())).isEqualTo(200);
  }

  @Test
  void aFailureSaysItToo() throws Exception {
    URI url = server(503, "try later".getBytes(StandardCharsets.UTF_8));

    ExecutionResult result = executor(Optional.empty()).execute(context(url, List.of()));

    assertThat(result.succeeded()).isFalse();
    assertThat(result.error()).isEqualTo("HTTP 503: try later");
    assertThat(result.output()).isEqualTo("HTTP 503\n\ntry later");
    assertThat(HttpTaskExecutor.statusOf(result.output())).isEqualTo(503);
  }

  @Test
  void bytesThatAreNotUtf8AreReplacedAndTheSigningSecretIsMasked() throws Exception {
    byte[] secret = SIGNING_SECRET.getBytes(StandardCharsets.UTF_8);
    byte[] body = new byte[secret.length + 4];
    body[0] = (byte) 0xC3; // half a character
    body[1] = ' ';
    System.arraycopy(secret, 0, body, 2, secret.length);
    body[body.length - 2] = '.';
    body[body.length - 1] = '!';
    URI url = server(200, body);

    ExecutionResult result =
        executor(Optional.of(new CallSigner(SIGNING_SECRET))).execute(context(url, List.of()));

    assertThat(result.output()).isEqualTo("HTTP 200\n\n\uFFFD ***.!");
  }

  @Test
  void aSecretThatWouldStraddleTheCutIsMaskedWholeBeforeTheBodyIsCut() {
    String secret = "s3cr3t-value-0123456789";
    // The secret starts 5 characters before the cut: cut first, its first 5 would be kept.
    String body = "x".repeat(HttpTaskExecutor.OUTPUT_BODY_BYTES - 5) + secret + "y".repeat(100);
    CheckedHttpClient.Response response =
        new CheckedHttpClient.Response(200, body.getBytes(StandardCharsets.UTF_8));

    String output =
        HttpTaskExecutor.output(
            response, OutputMask.of(Map.of("apiToken", secret), Map.of(), List.of()));

    assertThat(output).doesNotContain("s3cr3").contains("x***y");
    assertThat(output.length())
        .isLessThanOrEqualTo("HTTP 200\n\n".length() + HttpTaskExecutor.OUTPUT_BODY_BYTES);
  }

  @Test
  void theStatusIsReadOnlyFromAnHttpOutput() {
    assertThat(HttpTaskExecutor.statusOf("HTTP 204")).isEqualTo(204);
    assertThat(HttpTaskExecutor.statusOf("exit code 0")).isNull();
    assertThat(HttpTaskExecutor.statusOf("HTTP 2000")).isNull();
    assertThat(HttpTaskExecutor.statusOf(null)).isNull();
  }
}
