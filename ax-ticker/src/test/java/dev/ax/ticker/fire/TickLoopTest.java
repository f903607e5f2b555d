package dev.ax.ticker.fire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.ConcurrencyPolicy;
import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.StoredTask;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SettableClock;
import dev.ax.ticker.fire.InMemoryTickerPort.Emitted;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The tick loop with a settable clock and an in-memory port: no threads, no wall clock. */
class TickLoopTest {

  private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  private static final long T = T0.toEpochMilli();

  private final SettableClock clock = new SettableClock(T0);
  private final AtomicReference<Optional<LeaseFence>> leadership =
      new AtomicReference<>(Optional.of(new LeaseFence("ticker", "n1", 7)));
  private final InMemoryTickerPort port = new InMemoryTickerPort();
  private final TickLoop loop = loopWith(new TickLimits(10, 8, 10_000, 1000, 60_000));

  /** A loop over this test's clock, leadership and port, with {@code limits}. */
  private TickLoop loopWith(TickLimits limits) {
    return new TickLoop(
        clock,
        leadership::get,
        port,
        new FirePlanner(new FireTimes(), Duration.ofSeconds(5)),
        limits,
        new SimpleMeterRegistry());
  }

  private static StoredTask task(String id, Trigger trigger, MisfirePolicy misfire) {
    return TestTasks.stored(
        TestTasks.noop(id, trigger, misfire, 100, true, ConcurrencyPolicy.SKIP));
  }

  @BeforeEach
  void takeLeadership() {
    loop.step(); // the first step sees the new epoch and starts empty
  }

  private void at(long ms) {
    clock.set(Instant.ofEpochMilli(ms));
    while (loop.step() == 0) {
      // drain everything due now
    }
  }

  private void hold(long seq) {
    loop.offer(port.entry(seq));
  }

  /**
   * Adds an instance of {@code taskId} due at {@code dueMs} (its slot) and hands it to the loop.
   */
  private void holdDue(String taskId, long dueMs) {
    hold(port.add(taskId, dueMs, dueMs));
  }

  /** Stores a one-shot task, misfire policy FIRE_ONCE_NOW. */
  private void storeOnce(String taskId) {
    port.tasks.put(
        taskId, task(taskId, Trigger.Once.after(Duration.ZERO), MisfirePolicy.FIRE_ONCE_NOW));
  }

  /** Stores a cron task firing every second (UTC), misfire policy FIRE_ONCE_NOW. */
  private void storeEverySecond(String taskId) {
    port.tasks.put(
        taskId,
        task(
            taskId,
            new Trigger.Cron("0/1 * * * * ?", ZoneOffset.UTC),
            MisfirePolicy.FIRE_ONCE_NOW));
  }

  /** Stores one-shot task {@code taskId} and hands the loop its instance due at {@code dueMs}. */
  private void holdOnceDue(String taskId, long dueMs) {
    storeOnce(taskId);
    holdDue(taskId, dueMs);
  }

  /**
   * Stores every-second task {@code taskId} and hands the loop its instance due at {@code dueMs}.
   */
  private void holdEverySecondDue(String taskId, long dueMs) {
    storeEverySecond(taskId);
    holdDue(taskId, dueMs);
  }

  @Test
  void emitsAheadByTheConfiguredLeadAndNoMore() {
    TickLoop ahead = loopWith(new TickLimits(10, 8, 10_000, 1000, 60_000, 100));
    ahead.step(); // takes the lead
    storeOnce("a");
    ahead.offer(port.entry(port.add("a", T + 1005, T + 1005)));

    clock.set(Instant.ofEpochMilli(T + 904)); // 101 ms before due: not yet
    while (ahead.step() == 0) {}
    assertThat(port.emitted).isEmpty();
    clock.set(Instant.ofEpochMilli(T + 905)); // 100 ms before due
    while (ahead.step() == 0) {}

    assertThat(port.emitted)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.emittedAtMs()).isEqualTo(T + 905);
              assertThat(e.dueAtMs()).isEqualTo(T + 1005);
            });
  }

  @Test
  void aBurstDueAtOneInstantIsFiredInBatchesOfMaxBatchOldestFirst() {
    TickLoop small = loopWith(new TickLimits(10, 8, 10_000, 5, 60_000));
    small.step(); // takes the lead
    for (int i = 0; i < 12; i++) {
      storeOnce("burst-" + i);
      small.offer(port.entry(port.add("burst-" + i, T + 1000, T + 1000)));
    }
    storeOnce("later");
    small.offer(port.entry(port.add("later", T + 1001, T + 1001)));

    clock.set(Instant.ofEpochMilli(T + 1000));
    while (small.step() == 0) {}

    assertThat(port.firingSizes).containsExactly(5, 5, 2);
    assertThat(port.emitted).extracting(Emitted::instanceId).doesNotHaveDuplicates().hasSize(12);
    clock.set(Instant.ofEpochMilli(T + 1001));
    while (small.step() == 0) {}
    assertThat(port.firingSizes).containsExactly(5, 5, 2, 1);
    assertThat(port.emitted)
        .last()
        .extracting(Emitted::instanceId)
        .isEqualTo("later@" + (T + 1001));
  }

  @Test
  void firesAtTheDueMillisecondNeverBefore() {
    storeOnce("a");
    long seq = port.add("a", T + 1005, T + 1005);
    hold(seq);

    at(T);
    at(T + 1000);
    at(T + 1004);
    assertThat(port.emitted).isEmpty();
    at(T + 1005);

    assertThat(port.emitted)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.emittedAtMs()).isEqualTo(T + 1005);
              assertThat(e.epoch()).isEqualTo(7);
            });
  }

  @Test
  void aClockStepBackFiresNothingEarlyAndLosesNothing() {
    storeOnce("a");
    long first = port.add("a", T + 1000, T + 1000);
    long second = port.add("a", T + 2000, T + 2000);
    hold(first);
    hold(second);
    at(T + 500);

    at(T - 60_000); // the clock steps back a minute
    at(T + 999);
    assertThat(port.emitted).isEmpty();
    at(T + 1000);
    assertThat(port.emitted).extracting(Emitted::dueAtMs).containsExactly(T + 1000);
    at(T + 2000);

    assertThat(port.emitted).extracting(Emitted::dueAtMs).containsExactly(T + 1000, T + 2000);
    assertThat(port.emitted)
        .allSatisfy(e -> assertThat(e.emittedAtMs()).isGreaterThanOrEqualTo(e.dueAtMs()));
  }

  @Test
  void aClockStepForwardFiresWhatIsDueOldestFirstAndNothingElse() {
    storeOnce("a");
    for (int i = 5; i >= 1; i--) {
      holdDue("a", T + i * 1000L);
    }
    long later = port.add("a", T + 20_000, T + 20_000);
    hold(later);

    at(T + 10_000); // the clock jumps 10 s ahead

    assertThat(port.emitted)
        .extracting(Emitted::dueAtMs)
        .containsExactly(T + 1000, T + 2000, T + 3000, T + 4000, T + 5000);
    at(T + 20_000);
    assertThat(port.emitted).hasSize(6);
  }

  @Test
  void anUnstableClockHoldsEverythingUntilItIsStableAgain() {
    holdOnceDue("a", T + 100);
    clock.setStable(false);

    at(T + 5_000);
    assertThat(port.emitted).isEmpty();
    clock.setStable(true);
    at(T + 5_001);

    assertThat(port.emitted).hasSize(1);
  }

  @Test
  void aCronTaskChainsOneFiringPerSlotWithoutGapsOrDuplicates() {
    holdEverySecondDue("c", T + 1000);

    for (long ms = T; ms <= T + 30_006; ms += 7) {
      at(ms);
    }

    assertThat(port.emitted)
        .extracting(Emitted::dueAtMs)
        .containsExactlyElementsOf(
            java.util.stream.LongStream.rangeClosed(1, 30).map(s -> T + s * 1000).boxed().toList());
    assertThat(port.emitted)
        .allSatisfy(e -> assertThat(e.emittedAtMs() - e.dueAtMs()).isBetween(0L, 7L));
  }

  @Test
  void afterADowntimeFireOnceNowFiresOneCatchUpAndTheChainResumes() {
    holdEverySecondDue("c", T + 1000);

    at(T + 120_000); // down for two minutes

    assertThat(port.emitted).as("the late firing plus the slots just due").hasSizeBetween(1, 7);
    at(T + 125_000);
    long afterResume = port.emitted.stream().filter(e -> e.dueAtMs() > T + 120_000).count();
    assertThat(afterResume).isEqualTo(5);
  }

  @Test
  void aFailedFiringIsRetriedAndNotLost() {
    holdOnceDue("a", T + 10);
    port.failNextFire = true;

    clock.set(Instant.ofEpochMilli(T + 10));
    assertThat(loop.step()).isEqualTo(TickLoop.RETRY_WAIT_MS);
    assertThat(port.emitted).isEmpty();
    at(T + 11);

    assertThat(port.emitted).hasSize(1);
  }

  @Test
  void losingLeadershipDropsWhatWasHeldAndFiresNothing() {
    holdOnceDue("a", T + 100);
    at(T);

    leadership.set(Optional.empty());
    at(T + 200);
    assertThat(port.emitted).isEmpty();
    assertThat(loop.held()).isZero();
    assertThat(loop.needsFullReload()).isTrue();

    leadership.set(Optional.of(new LeaseFence("ticker", "n1", 8)));
    loop.step();
    holdDue("a", T + 300);
    at(T + 300);
    assertThat(port.emitted).singleElement().satisfies(e -> assertThat(e.epoch()).isEqualTo(8));
  }

  @Test
  void triggerGroupIdsAreHeldWhileEntriesAreInTheWheelAndFreedByEveryWayOut() {
    long firstSeq = -1;
    for (int i = 0; i < 5; i++) {
      storeOnce("t" + i);
      long seq = port.add("t" + i, T + 100 + i, T + 100 + i);
      firstSeq = i == 0 ? seq : firstSeq;
      loop.offer(new WheelEntry(seq, T + 100 + i, "CRON|" + i + " * * * * ?|UTC"));
    }
    loop.offer(
        new WheelEntry(port.add("t0", T + 5000, T + 5000), T + 5000, "CRON|0 * * * * ?|UTC"));
    at(T);
    assertThat(loop.triggerGroups()).isEqualTo(5);

    // A reload offers what the wheel holds already: not added, not counted twice.
    loop.offer(new WheelEntry(firstSeq, T + 100, "CRON|0 * * * * ?|UTC"));
    // Already due when offered: fired from the ready list, never in the wheel.
    storeOnce("late");
    loop.offer(new WheelEntry(port.add("late", T - 10, T - 10), T - 10, "CRON|late"));
    at(T + 1);
    assertThat(loop.triggerGroups()).isEqualTo(5);

    at(T + 200); // fired: every group but the one still holding T + 5000 is freed
    assertThat(port.emitted).hasSize(6);
    assertThat(loop.triggerGroups()).isEqualTo(1);

    leadership.set(Optional.of(new LeaseFence("ticker", "n1", 8)));
    at(T + 300); // a new epoch clears the wheel
    assertThat(loop.triggerGroups()).isZero();
  }
}
