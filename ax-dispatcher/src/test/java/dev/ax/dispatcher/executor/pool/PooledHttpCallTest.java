package dev.ax.dispatcher.executor.pool;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.ax.common.model.EndpointState;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.PoolStrategy;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.PoolStore;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SystemClock;
import dev.ax.dispatcher.DispatcherKeys;
import dev.ax.dispatcher.executor.AttemptContext;
import dev.ax.dispatcher.executor.HostAllowList;
import dev.ax.dispatcher.executor.HttpTaskExecutor;
import dev.ax.dispatcher.executor.net.CallSigners;
import dev.ax.dispatcher.executor.net.HttpTargetPolicy;
import dev.ax.dispatcher.executor.net.PortList;
import dev.ax.spi.ExecutionResult;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP executor's pool path against real loopback servers: a refused connection goes on to the
 * next endpoint with the same request (same Idempotency-Key, attempt, instance id), a 503 does not
 * fail over, an endpoint the allow-list refuses is passed over like a dead one.
 */
class PooledHttpCallTest {

  private final List<HttpServer> servers = new ArrayList<>();
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final List<PoolView> pools = new ArrayList<>();
  private final SystemClock clock = new SystemClock();
  private HttpTaskExecutor executor;

  @AfterEach
  void close() {
    servers.forEach(s -> s.stop(0));
    if (executor != null) {
      executor.close();
    }
  }

  private String server(String name, int status) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          seen.add(
              name
                  + " "
                  + exchange.getRequestURI()
                  + " "
                  + exchange.getRequestHeaders().getFirst("Idempotency-Key")
                  + " "
                  + exchange.getRequestHeaders().getFirst("X-AX-Attempt"));
          exchange.sendResponseHeaders(status, -1);
          exchange.close();
        });
    server.start();
    servers.add(server);
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private static String closedPort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return "http://127.0.0.1:" + socket.getLocalPort();
    }
  }

  private ExecutionResult run(String allowedHost, String... urls) throws Exception {
    List<PoolStore.Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < urls.length; i++) {
      endpoints.add(new PoolStore.Endpoint("p", urls[i], EndpointState.ACTIVE, i, clock.millis()));
    }
    pools.add(new PoolView("p", PoolStrategy.FAILOVER, 60_000, endpoints));
    PoolDirectory directory = new PoolDirectory(() -> pools, clock, Duration.ofSeconds(1));
    executor =
        new HttpTaskExecutor(
            new HttpTargetPolicy(
                new HostAllowList(List.of(allowedHost)),
                List.of(),
                PortList.parse(
                    List.of(DispatcherKeys.HTTP_ALLOWED_PORTS.defaultValue().split(","))),
                false,
                InetAddress::getAllByName),
            CallSigners.shared(Optional.empty()),
            64,
            clock,
            Optional.of(PoolCalls.of(directory, clock)));
    TaskSpec task =
        TestTasks.spec(
            "task-1",
            "default",
            Trigger.Once.after(Duration.ZERO),
            ExecutorSpec.pooled("p", "/run", "POST", Map.of(), "{}", List.of()),
            Duration.ofSeconds(30),
            RetryPolicy.DEFAULT,
            Map.of());
    return executor.execute(
        new AttemptContext(
            task,
            "task-1@1000",
            1,
            Instant.ofEpochMilli(1000),
            "trace-1",
            Instant.now().plusSeconds(30)));
  }

  @Test
  void aRefusedConnectionGoesToTheNextEndpointWithTheSameRequest() throws Exception {
    String dead = closedPort();
    String alive = server("alive", 200);

    ExecutionResult result = run("127.0.0.1", dead, alive);

    assertThat(result.succeeded()).as(String.valueOf(result.error())).isTrue();
    assertThat(seen).containsExactly("alive /run task-1@1000 1");
  }

  @Test
  void aResponseOfAnyStatusIsNoFailover() throws Exception {
    String failing = server("failing", 503);
    String other = server("other", 200);

    ExecutionResult result = run("127.0.0.1", failing, other);

    assertThat(result.succeeded()).isFalse();
    assertThat(result.retryable()).isTrue();
    assertThat(result.error()).startsWith("HTTP 503");
    assertThat(seen).containsExactly("failing /run task-1@1000 1");
  }

  @Test
  void noEndpointReachableIsARetryableFailureNamingThePool() throws Exception {
    ExecutionResult result = run("127.0.0.1", closedPort(), closedPort());

    assertThat(result.retryable()).isTrue();
    assertThat(result.error()).startsWith("executor pool p: none of the 2 endpoint(s) tried");
  }

  @Test
  void anEndpointOffTheAllowListIsPassedOverAndOnlyAllRefusedFailsRetryably() throws Exception {
    String alive = server("alive", 200);
    String refused = alive.replace("127.0.0.1", "localhost"); // the same server, another name

    ExecutionResult result = run("127.0.0.1", refused, alive);

    assertThat(result.succeeded()).as(String.valueOf(result.error())).isTrue();
    assertThat(seen).containsExactly("alive /run task-1@1000 1");

    seen.clear();
    ExecutionResult allRefused = run("allowed.example", alive);

    assertThat(allRefused.succeeded()).isFalse();
    assertThat(allRefused.retryable()).as("the pool or the policy may be fixed").isTrue();
    assertThat(allRefused.error()).contains("allow-list");
    assertThat(seen).isEmpty();
  }
}
