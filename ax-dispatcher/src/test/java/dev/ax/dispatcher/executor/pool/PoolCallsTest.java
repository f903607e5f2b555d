package dev.ax.dispatcher.executor.pool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.EndpointState;
import dev.ax.common.model.PoolStrategy;
import dev.ax.common.store.PoolStore;
import dev.ax.common.time.SettableClock;
import dev.ax.spi.ExecutionResult;
import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PoolCallsTest {

  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  private final SettableClock clock = new SettableClock(START);
  private final List<PoolView> pools = new ArrayList<>();
  private final AtomicInteger reads = new AtomicInteger();
  private final PoolDirectory directory =
      new PoolDirectory(
          () -> {
            reads.incrementAndGet();
            return List.copyOf(pools);
          },
          clock,
          Duration.ofSeconds(1));
  private final PoolCalls calls = PoolCalls.of(directory, clock);
  private final List<URI> called = new ArrayList<>();

  private void pool(String... urls) {
    List<PoolStore.Endpoint> endpoints = new ArrayList<>();
    for (int i = 0; i < urls.length; i++) {
      endpoints.add(new PoolStore.Endpoint("p", urls[i], EndpointState.ACTIVE, i, clock.millis()));
    }
    pools.add(new PoolView("p", PoolStrategy.FAILOVER, 60_000, endpoints));
  }

  private ExecutionResult run(PoolCalls.EndpointCall call) throws Exception {
    return calls.run("p", "/run", "task", clock.now().plusSeconds(30), call);
  }

  @Test
  void anEndpointThatCannotBeConnectedToIsSkippedWithinTheAttempt() throws Exception {
    pool("http://dead:1", "http://alive:2");
    ExecutionResult result =
        run(
            url -> {
              called.add(url);
              return url.getHost().equals("dead")
                  ? EndpointUnreachable.result(url.toString(), new ConnectException("refused"))
                  : ExecutionResult.ok();
            });
    assertThat(result.succeeded()).isTrue();
    assertThat(called)
        .containsExactly(URI.create("http://dead:1/run"), URI.create("http://alive:2/run"));

    called.clear();
    run(
        url -> {
          called.add(url);
          return ExecutionResult.ok();
        });
    assertThat(called).as("the dead one is suspect: tried last").hasSize(1);
    assertThat(called.get(0).getHost()).isEqualTo("alive");
  }

  @Test
  void aResponseOfAnyStatusEndsTheAttemptWithoutFailover() throws Exception {
    pool("http://a:1", "http://b:2");
    ExecutionResult result =
        run(
            url -> {
              called.add(url);
              return ExecutionResult.failure("HTTP 503");
            });
    assertThat(result.succeeded()).isFalse();
    assertThat(result.retryable()).isTrue();
    assertThat(result.error()).isEqualTo("HTTP 503");
    assertThat(called).hasSize(1);
  }

  @Test
  void whenNoEndpointAnswersTheAttemptFailsRetryablyNamingThePool() throws Exception {
    pool("http://a:1", "http://b:2", "http://c:3");
    ExecutionResult result =
        run(
            url -> {
              called.add(url);
              return EndpointUnreachable.result(url.toString(), new ConnectException("refused"));
            });
    assertThat(called).hasSize(3);
    assertThat(result.retryable()).isTrue();
    assertThat(result.error())
        .startsWith("executor pool p: none of the 3 endpoint(s) tried of 3 live");
  }

  @Test
  void noPoolAndNoLiveEndpointAreRetryableFailures() throws Exception {
    ExecutionResult none = run(url -> ExecutionResult.ok());
    assertThat(none.retryable()).isTrue();
    assertThat(none.error()).contains("executor pool p does not exist");

    clock.tick(Duration.ofSeconds(2)); // the directory reads again
    pools.add(
        new PoolView(
            "p",
            PoolStrategy.ROUND_ROBIN,
            1_000,
            List.of(
                new PoolStore.Endpoint("p", "http://a", EndpointState.DRAINING, 0, clock.millis()),
                new PoolStore.Endpoint("p", "http://b", EndpointState.ACTIVE, 1, 0))));
    ExecutionResult dead = run(url -> ExecutionResult.ok());
    assertThat(dead.retryable()).isTrue();
    assertThat(dead.error())
        .isEqualTo(
            "executor pool p has no live endpoint: 2 registered, 1 draining, 1 offline (no"
                + " heartbeat within 1000 ms)");
  }

  @Test
  void theDirectoryReadsAtMostOncePerRefresh() throws Exception {
    pool("http://a:1");
    for (int i = 0; i < 10; i++) {
      run(url -> ExecutionResult.ok());
    }
    assertThat(reads.get()).isEqualTo(1);
    clock.tick(Duration.ofMillis(1_000));
    run(url -> ExecutionResult.ok());
    assertThat(reads.get()).isEqualTo(2);
  }
}
