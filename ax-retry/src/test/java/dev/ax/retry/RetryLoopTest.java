package dev.ax.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.time.SettableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The retry loop with a settable clock and an in-memory port: no threads, no wall clock. */
class RetryLoopTest {

  private static final long T0 = 1_000_000;

  private final SettableClock clock = new SettableClock(Instant.ofEpochMilli(T0));
  private final InMemoryRetryPort port = new InMemoryRetryPort();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final RetryLoop loop = loopWith(new RetryQuota(1_000, 1_000, T0));

  private RetryLoop loopWith(RetryQuota quota) {
    return loopWith(quota, meters);
  }

  private RetryLoop loopWith(RetryQuota quota, SimpleMeterRegistry registry) {
    return new RetryLoop(clock, port, new RetryPlanner(quota, 500), 10_000, registry);
  }

  /** A RETRYING row due at {@code atMs}, handed to the loop as the consumer or the scan would. */
  private void hold(long seq, long atMs) {
    port.retrying(seq, "task-" + seq, atMs);
    loop.offer(new HeldRetry(seq, atMs));
  }

  private void at(long ms) {
    clock.set(Instant.ofEpochMilli(ms));
    loop.step();
  }

  @Test
  void holdsEachRetryUntilItsBackoffIsOver() {
    hold(1, T0 + 1_000);
    hold(2, T0 + 500);

    at(T0 + 499);
    assertThat(port.emitted).isEmpty();
    assertThat(loop.held()).isEqualTo(2);

    at(T0 + 520);
    assertThat(port.emitted).containsExactly(2L);
    at(T0 + 1_020);
    assertThat(port.emitted).containsExactly(2L, 1L);
    assertThat(loop.held()).isZero();
    assertThat(meters.counter("ax.retry.dispatched").count()).isEqualTo(2);
  }

  @Test
  void aRetryDueAlreadyGoesAtTheNextStep() {
    hold(1, T0 - 5_000);

    loop.step();

    assertThat(port.emitted).containsExactly(1L);
  }

  @Test
  void theQuotaFlattensABurstToItsRate() {
    SimpleMeterRegistry own = new SimpleMeterRegistry();
    RetryLoop slow = loopWith(new RetryQuota(100, 1_000, T0), own); // 1 token now, 1 per 10 ms
    for (long seq = 1; seq <= 5; seq++) {
      port.retrying(seq, "t" + seq, T0 - 1);
      slow.offer(new HeldRetry(seq, T0 - 1));
    }

    slow.step();
    assertThat(port.emitted).containsExactly(1L);
    assertThat(own.get("ax.retry.held.back.by.quota").gauge().value()).isEqualTo(4);

    clock.set(Instant.ofEpochMilli(T0 + 20));
    slow.step();
    assertThat(port.emitted).containsExactly(1L, 2L, 3L);
  }

  @Test
  void theInFlightCountBoundsDispatchesAndIsReadWhenRetriesStartToWait() {
    SimpleMeterRegistry own = new SimpleMeterRegistry();
    RetryLoop bounded = loopWith(new RetryQuota(1_000, 2, T0 - 1_000), own);
    port.inFlight = 1;
    for (long seq = 1; seq <= 3; seq++) {
      port.retrying(seq, "t" + seq, T0 - 1);
      bounded.offer(new HeldRetry(seq, T0 - 1));
    }

    bounded.step();

    assertThat(port.inFlightCounts).as("read fresh before the first dispatch").isEqualTo(1);
    assertThat(port.emitted).containsExactly(1L);
    assertThat(own.get("ax.retry.in.flight").gauge().value()).isEqualTo(2);

    port.inFlight = 0; // the first retry ended
    bounded.countInFlight();
    bounded.step();
    assertThat(port.emitted).containsExactly(1L, 2L, 3L);
  }

  @Test
  void theInFlightCountIsNotReadWhileNothingWaits() {
    loop.step();
    loop.countInFlight();

    assertThat(port.inFlightCounts).isZero();
  }

  @Test
  void nothingIsDispatchedWhileTheSwitchIsOff() {
    port.retriesEnabled = false;
    hold(1, T0 - 1);

    loop.step();
    assertThat(port.dispatchCalls).isEmpty();
    assertThat(loop.held()).isEqualTo(1);

    port.retriesEnabled = true;
    loop.step();
    assertThat(port.emitted).containsExactly(1L);
  }

  @Test
  void aFailedDispatchKeepsTheBatchAndAsksForABackOff() {
    hold(1, T0 - 1);
    port.failDispatch = true;

    assertThat(loop.step()).isEqualTo(RetryLoop.RETRY_WAIT_MS);
    assertThat(loop.held()).isEqualTo(1);

    port.failDispatch = false;
    clock.set(Instant.ofEpochMilli(T0 + 1_000));
    assertThat(loop.step()).isZero();
    assertThat(port.emitted).containsExactly(1L);
    assertThat(port.dispatchCalls).containsExactly(List.of(1L), List.of(1L));
  }

  @Test
  void aRetryTwiceHandedOverIsDispatchedOnce() {
    hold(1, T0 - 1);
    loop.offer(new HeldRetry(1, T0 - 1)); // the consumer and the scan both had it

    loop.step();
    loop.step();

    assertThat(port.dispatchCalls).containsExactly(List.of(1L));
  }
}
