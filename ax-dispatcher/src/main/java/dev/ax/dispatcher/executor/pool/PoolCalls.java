package dev.ax.dispatcher.executor.pool;

import dev.ax.common.model.EndpointState;
import dev.ax.common.store.PoolStore;
import dev.ax.common.time.Clock;
import dev.ax.spi.ExecutionResult;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Runs one attempt of a pool task: asks the {@link PoolRouter} for the live endpoints in order,
 * calls the first at its base URL + the task's path, and when that call never reached its endpoint
 * ({@link EndpointUnreachable}: refused, no route, connect timeout, no DNS answer) marks the
 * endpoint suspect for {@link #SUSPECT_FOR} and calls the next, within the same attempt (so no
 * retry is used) and its deadline; each endpoint at most once. A call that got any response ends
 * the attempt with that response's result (a 5xx is a normal, retryable failure: the endpoint was
 * reached, so there is no failover). Only when no endpoint could be reached does the attempt fail,
 * retryably, naming the pool and how many endpoints were tried; no pool, or no live endpoint, is a
 * retryable failure too (the pool may come back). The same request is sent to each endpoint, so
 * {@code Idempotency-Key} and every AX header are the same whichever answers.
 *
 * <p>Thread-safe: the directory, router, counters and meters are.
 */
public final class PoolCalls {

  /** How long an endpoint that refused a connection is tried last by this dispatcher. */
  public static final Duration SUSPECT_FOR = Duration.ofSeconds(5);

  /** One call of the attempt's request to {@code url}. */
  @FunctionalInterface
  public interface EndpointCall {
    ExecutionResult call(URI url) throws InterruptedException, HttpTimeoutException;
  }

  private final PoolDirectory directory;
  private final PoolRouter router;
  private final InFlightCalls inFlight;
  private final SuspectEndpoints suspects;
  private final PoolMeters meters;
  private final Clock clock;

  PoolCalls(PoolDirectory directory, Clock clock, PoolMeters meters) {
    this.directory = directory;
    this.clock = clock;
    this.meters = meters;
    this.inFlight = new InFlightCalls();
    this.suspects = new SuspectEndpoints(SUSPECT_FOR.toMillis());
    this.router = new PoolRouter(inFlight, suspects);
  }

  /** Over the pools of {@code store}, metered in {@code meters}. */
  public static PoolCalls of(PoolStore store, Clock clock, MeterRegistry meters) {
    PoolDirectory directory = PoolDirectory.of(store, clock);
    return new PoolCalls(directory, clock, new PoolMeters(meters, directory, clock::millis));
  }

  /** Over {@code directory}, without meters (tests). */
  static PoolCalls of(PoolDirectory directory, Clock clock) {
    return new PoolCalls(directory, clock, PoolMeters.none(directory));
  }

  /**
   * The result of the attempt of {@code taskId} on {@code pool}, calling its endpoints at {@code
   * path} through {@code call} until one is reached or {@code deadline} passes.
   */
  public ExecutionResult run(
      String pool, String path, String taskId, Instant deadline, EndpointCall call)
      throws InterruptedException, HttpTimeoutException {
    Optional<PoolView> view = directory.pool(pool);
    if (view.isEmpty()) {
      return ExecutionResult.failure(
          "executor pool " + pool + " does not exist (create it with ax pool create)");
    }
    long nowMs = clock.millis();
    List<String> urls = router.route(view.get(), taskId, nowMs);
    if (urls.isEmpty()) {
      return ExecutionResult.failure(noLiveEndpoint(view.get(), nowMs));
    }
    ExecutionResult last = null;
    int tried = 0;
    for (String url : urls) {
      if (tried > 0 && !clock.now().isBefore(deadline)) {
        break;
      }
      if (tried > 0) {
        meters.failover(pool);
      }
      tried++;
      inFlight.start(pool, url);
      try {
        last = call.call(URI.create(url + path));
      } finally {
        inFlight.end(pool, url);
      }
      if (!EndpointUnreachable.marks(last)) {
        return last;
      }
      suspects.mark(pool, url, clock.millis());
    }
    return ExecutionResult.failure(
        "executor pool "
            + pool
            + ": none of the "
            + tried
            + " endpoint(s) tried of "
            + urls.size()
            + " live could be connected to; last: "
            + last.error(),
        last.cause());
  }

  private static String noLiveEndpoint(PoolView pool, long nowMs) {
    long draining =
        pool.endpoints().stream().filter(e -> e.state() == EndpointState.DRAINING).count();
    long offline =
        pool.endpoints().stream()
            .filter(
                e -> e.state() == EndpointState.ACTIVE && !e.online(nowMs, pool.offlineAfterMs()))
            .count();
    return "executor pool "
        + pool.name()
        + " has no live endpoint: "
        + pool.endpoints().size()
        + " registered, "
        + draining
        + " draining, "
        + offline
        + " offline (no heartbeat within "
        + pool.offlineAfterMs()
        + " ms)";
  }
}
