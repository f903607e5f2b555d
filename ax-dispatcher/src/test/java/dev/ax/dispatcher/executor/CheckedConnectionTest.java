package dev.ax.dispatcher.executor;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SystemClock;
import dev.ax.dispatcher.executor.net.AddressRange;
import dev.ax.dispatcher.executor.net.HttpTargetPolicy;
import dev.ax.dispatcher.executor.net.PortList;
import dev.ax.spi.ExecutionResult;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTP executor connects only to addresses its policy checked, over real sockets: JDK {@link
 * HttpServer}s on loopback addresses, and a scripted resolver standing in for DNS. Only {@code
 * 127.0.0.1} is an allowed range ({@code AX_HTTP_ALLOWED_RANGES}); every other loopback address is
 * in the denied {@code 127.0.0.0/8}, which makes {@code 127.0.0.2} an "internal" server a rebinding
 * name could point at. Each server counts the requests it gets.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CheckedConnectionTest {

  private static final String HOST = "hooks.corp.example";

  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  /**
   * A server on {@code address}:{@code port} (0: any) answering 200, counting into {@code hits}.
   */
  private HttpServer server(String address, int port, AtomicInteger hits) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(address, port), 0);
    server.createContext(
        "/",
        exchange -> {
          hits.incrementAndGet();
          exchange.getRequestBody().readAllBytes();
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    server.start();
    closeables.add(() -> server.stop(0));
    return server;
  }

  /**
   * A resolver that gives {@code answers} in turn (the last one from then on), counting lookups.
   */
  private static HttpTargetPolicy.Resolver dns(AtomicInteger lookups, String... answers) {
    return host -> {
      if (!host.equals(HOST)) {
        throw new UnknownHostException(host);
      }
      String answer = answers[Math.min(lookups.getAndIncrement(), answers.length - 1)];
      List<InetAddress> addresses = new ArrayList<>();
      for (String address : answer.split(",")) {
        addresses.add(InetAddress.getByName(address));
      }
      return addresses.toArray(InetAddress[]::new);
    };
  }

  private HttpTaskExecutor executor(String ports, HttpTargetPolicy.Resolver resolver) {
    HttpTaskExecutor executor =
        new HttpTaskExecutor(
            new HttpTargetPolicy(
                new HostAllowList(List.of("*.corp.example")),
                List.of(AddressRange.parse("127.0.0.1/32")),
                PortList.parse(List.of(ports.split(","))),
                false,
                resolver),
            Optional.empty(),
            100,
            new SystemClock());
    closeables.add(executor);
    return executor;
  }

  private static AttemptContext attempt(URI url) {
    TaskSpec task =
        TestTasks.spec(
            "task-1",
            "default",
            Trigger.Once.after(Duration.ZERO),
            ExecutorSpec.http(url, null, Map.of(), "{}"),
            Duration.ofSeconds(30),
            RetryPolicy.DEFAULT,
            Map.of());
    return new AttemptContext(
        task,
        "task-1@1000",
        1,
        Instant.ofEpochMilli(1000),
        "trace-1",
        Instant.now().plusSeconds(30));
  }

  private static URI url(int port) {
    return URI.create("http://" + HOST + ":" + port + "/hook");
  }

  @Test
  void aCheckedNameIsCalledAtTheAddressItsConnectTimeLookupGave() throws Exception {
    AtomicInteger hits = new AtomicInteger();
    int port = server("127.0.0.1", 0, hits).getAddress().getPort();
    AtomicInteger lookups = new AtomicInteger();

    ExecutionResult result = executor("*", dns(lookups, "127.0.0.1")).execute(attempt(url(port)));

    assertThat(result.succeeded()).isTrue();
    assertThat(result.output()).startsWith("HTTP 2");
    assertThat(hits).hasValue(1);
    assertThat(lookups).as("the early check's lookup and the connection's own").hasValue(2);
  }

  @Test
  void aNameThatRebindsToADeniedAddressAfterTheCheckIsNeverConnectedTo() throws Exception {
    AtomicInteger allowedHits = new AtomicInteger();
    AtomicInteger internalHits = new AtomicInteger();
    int port = server("127.0.0.1", 0, allowedHits).getAddress().getPort();
    server("127.0.0.2", port, internalHits); // what the name points at once the check passed
    AtomicInteger lookups = new AtomicInteger();

    ExecutionResult result =
        executor("*", dns(lookups, "127.0.0.1", "127.0.0.2")).execute(attempt(url(port)));

    assertThat(lookups).as("the second answer came from the client's connect").hasValue(2);
    assertThat(result.succeeded()).isFalse();
    assertThat(result.retryable()).as("a refusal is no reason to try again").isFalse();
    assertThat(result.error()).contains(HOST, "resolves to 127.0.0.2", "127.0.0.0/8");
    assertThat(internalHits).as("the denied address was never called").hasValue(0);
    assertThat(allowedHits).as("nor the checked one: its answer was not reused").hasValue(0);
  }

  @Test
  void oneDeniedAddressAmongTheConnectTimeAnswersRefusesThemAll() throws Exception {
    AtomicInteger hits = new AtomicInteger();
    int port = server("127.0.0.1", 0, hits).getAddress().getPort();
    AtomicInteger lookups = new AtomicInteger();

    ExecutionResult result =
        executor("*", dns(lookups, "127.0.0.1", "127.0.0.1,169.254.169.254"))
            .execute(attempt(url(port)));

    assertThat(result.retryable()).isFalse();
    assertThat(result.error()).contains("169.254.169.254", "169.254.0.0/16");
    assertThat(hits).hasValue(0);
  }

  @Test
  void aNameResolvingToLoopbackIsRefusedBeforeAnyConnection() throws Exception {
    AtomicInteger hits = new AtomicInteger();
    int port = server("127.0.0.2", 0, hits).getAddress().getPort();
    AtomicInteger lookups = new AtomicInteger();

    ExecutionResult result = executor("*", dns(lookups, "127.0.0.2")).execute(attempt(url(port)));

    assertThat(result.retryable()).isFalse();
    assertThat(result.error()).contains("resolves to 127.0.0.2", "127.0.0.0/8");
    assertThat(lookups).as("the early check only: the client never looked").hasValue(1);
    assertThat(hits).hasValue(0);
  }

  @Test
  void aNameResolvingToTheMetadataAddressIsRefused() throws Exception {
    AtomicInteger lookups = new AtomicInteger();

    ExecutionResult result =
        executor("*", dns(lookups, "169.254.169.254"))
            .execute(attempt(URI.create("http://" + HOST + "/latest/meta-data")));

    assertThat(result.retryable()).isFalse();
    assertThat(result.error()).contains("resolves to 169.254.169.254", "169.254.0.0/16");
    assertThat(lookups).hasValue(1);
  }

  @Test
  void aDeniedPortIsRefusedWithoutALookupOrAConnection() throws Exception {
    AtomicInteger hits = new AtomicInteger();
    int port = server("127.0.0.1", 0, hits).getAddress().getPort();
    AtomicInteger lookups = new AtomicInteger();

    ExecutionResult result =
        executor("80,443", dns(lookups, "127.0.0.1")).execute(attempt(url(port)));

    assertThat(result.retryable()).isFalse();
    assertThat(result.error()).contains("port " + port, "AX_HTTP_ALLOWED_PORTS");
    assertThat(lookups).hasValue(0);
    assertThat(hits).hasValue(0);
  }

  @Test
  void aRedirectToAnAllowedTargetIsNotFollowed() throws Exception {
    AtomicInteger targetHits = new AtomicInteger();
    int targetPort = server("127.0.0.1", 0, targetHits).getAddress().getPort();
    AtomicInteger redirects = new AtomicInteger();
    HttpServer redirecting = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    redirecting.createContext(
        "/",
        exchange -> {
          redirects.incrementAndGet();
          exchange.getResponseHeaders().add("Location", url(targetPort).toString());
          exchange.sendResponseHeaders(302, -1);
          exchange.close();
        });
    redirecting.start();
    closeables.add(() -> redirecting.stop(0));
    AtomicInteger lookups = new AtomicInteger();

    ExecutionResult result =
        executor("*", dns(lookups, "127.0.0.1"))
            .execute(attempt(url(redirecting.getAddress().getPort())));

    assertThat(result.succeeded()).isFalse();
    assertThat(result.retryable()).as("a 3xx is not a client error").isTrue();
    assertThat(result.error()).startsWith("HTTP 302");
    assertThat(redirects).hasValue(1);
    assertThat(targetHits).as("the Location, allowed as it is, was not called").hasValue(0);
  }
}
