package dev.ax.ticker.fire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.ConcurrencyPolicy;
import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.testing.TestTasks;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FirePlannerTest {

  private static final Duration THRESHOLD = Duration.ofSeconds(5);
  private static final long T0 = Instant.parse("2026-06-01T12:00:00Z").toEpochMilli();

  private final FirePlanner planner = new FirePlanner(new FireTimes(), THRESHOLD);

  /** A task with the default firing policies: FIRE_ONCE_NOW (at most 100), concurrent. */
  private static StoredTask task(String id, Trigger trigger) {
    return TestTasks.stored(TestTasks.noop(id, trigger));
  }

  /** A concurrent task that handles missed slots by {@code misfire}, at most 100 at once. */
  private static StoredTask task(String id, Trigger trigger, MisfirePolicy misfire) {
    return task(id, trigger, misfire, MisfirePolicy.DEFAULT_MAX_FIRE_ALL);
  }

  private static StoredTask task(
      String id, Trigger trigger, MisfirePolicy misfire, int maxFireAll) {
    return TestTasks.stored(
        TestTasks.noop(id, trigger, misfire, maxFireAll, true, ConcurrencyPolicy.SKIP));
  }

  /** A FIRE_ONCE_NOW task never run twice at once, {@code policy} when two instances meet. */
  private static StoredTask nonConcurrent(String id, Trigger trigger, ConcurrencyPolicy policy) {
    return TestTasks.stored(
        TestTasks.noop(
            id,
            trigger,
            MisfirePolicy.FIRE_ONCE_NOW,
            MisfirePolicy.DEFAULT_MAX_FIRE_ALL,
            false,
            policy));
  }

  /** Task "nc": every 10 s from T0, never two instances at once, {@code policy} when they meet. */
  private static StoredTask nonConcurrent(ConcurrencyPolicy policy) {
    return nonConcurrent(
        "nc", new Trigger.FixedRate(Duration.ofSeconds(10), Instant.ofEpochMilli(T0)), policy);
  }

  private static StoredTask everySecond(String id, MisfirePolicy misfire) {
    return task(id, new Trigger.Cron("* * * * * ?", ZoneOffset.UTC), misfire);
  }

  /** The plan, at {@code nowMs}, for {@code row} alone, an instance of {@link #everySecond} "c". */
  private FirePlan planEverySecond(DueInstance row, MisfirePolicy misfire, long nowMs) {
    return planner.plan(List.of(row), Map.of("c", everySecond("c", misfire)), Set.of(), nowMs);
  }

  private static DueInstance row(String taskId, long slotMs, long dueMs, long seq) {
    return new DueInstance(taskId + "@" + slotMs, taskId, dueMs, "trace", seq, 1);
  }

  private static List<String> successorIds(FirePlan plan) {
    return plan.successors().values().stream()
        .flatMap(List::stream)
        .map(NewInstance::instanceId)
        .toList();
  }

  @Test
  void anExtraInstanceOfAPeriodicTaskFiresWithoutExtendingTheChain() {
    // RUN_NOW's instance: no slot in its id, due now, even long after the task's last slot.
    DueInstance extra = new DueInstance("c@run:op-1", "c", T0 + 60_000, "trace", 9, 1);

    FirePlan plan = planEverySecond(extra, MisfirePolicy.SKIP, T0 + 60_010);

    assertThat(plan.dispatch()).containsExactly(9L);
    assertThat(plan.skip()).isEmpty();
    assertThat(plan.successorsOf(extra.instanceId())).isEmpty();
    assertThat(plan.chainsEnded()).isEmpty();
  }

  @Test
  void onlyDigitsAfterTheLastAtNameASlot() {
    assertThat(FirePlanner.isSlotId("c@1767225600000")).isTrue();
    assertThat(FirePlanner.isSlotId("a@b@5")).isTrue();
    assertThat(FirePlanner.isSlotId("c@run:op-1")).isFalse();
    assertThat(FirePlanner.isSlotId("c@")).isFalse();
    assertThat(FirePlanner.isSlotId("c")).isFalse();
    assertThat(FirePlanner.isSlotId("c@" + "9".repeat(25))).as("beyond a long").isFalse();
  }

  @Test
  void anOnTimePeriodicFiringDispatchesAndChainsItsNextSlot() {
    DueInstance row = row("c", T0, T0, 1);

    FirePlan plan = planEverySecond(row, MisfirePolicy.FIRE_ONCE_NOW, T0 + 20);

    assertThat(plan.dispatch()).containsExactly(1L);
    assertThat(plan.chainsEnded()).isEmpty();
    assertThat(plan.successorsOf(row.instanceId()))
        .singleElement()
        .satisfies(
            n -> {
              assertThat(n.instanceId()).isEqualTo("c@" + (T0 + 1000));
              assertThat(n.dueAtMs()).isEqualTo(T0 + 1000);
            });
  }

  @Test
  void fireOnceNowFiresTheLateRowOnceAndResumesAfterNow() {
    long now = T0 + 60_000; // a minute of an every-second cron missed
    DueInstance late = row("c", T0, T0, 1);

    FirePlan plan = planEverySecond(late, MisfirePolicy.FIRE_ONCE_NOW, now);

    assertThat(plan.dispatch()).containsExactly(1L);
    assertThat(plan.skip()).isEmpty();
    List<NewInstance> next = plan.successorsOf(late.instanceId());
    // The slots just due (within the threshold) fire as scheduled, then the first slot after now.
    assertThat(next)
        .extracting(NewInstance::dueAtMs)
        .allMatch(due -> due >= now - THRESHOLD.toMillis());
    assertThat(next).extracting(NewInstance::dueAtMs).contains(now + 1000);
    assertThat(next).hasSizeLessThanOrEqualTo(7);
  }

  @Test
  void skipMarksTheLateRowSkippedAndResumesAfterNow() {
    long now = T0 + 60_000;
    DueInstance late = row("c", T0, T0, 1);

    FirePlan plan = planEverySecond(late, MisfirePolicy.SKIP, now);

    assertThat(plan.dispatch()).isEmpty();
    // Slots T0 .. now - 5 s were missed: the late row, the oldest, stands for all 55.
    assertThat(plan.skip()).containsEntry(FirePlanner.SKIP_MISFIRE + ", 55 firings", List.of(1L));
    assertThat(plan.firingsOf(1L)).isEqualTo(55);
    assertThat(NotRunReason.of(FirePlanner.SKIP_MISFIRE)).isEqualTo(NotRunReason.MISFIRE);
    assertThat(successorIds(plan)).contains("c@" + (now + 1000));
  }

  @Test
  void fireAllCatchesUpBoundedAndDropsTheOldest() {
    long now = T0 + 60_000;
    DueInstance late = row("c", T0, T0, 1);
    StoredTask task =
        task("c", new Trigger.Cron("* * * * * ?", ZoneOffset.UTC), MisfirePolicy.FIRE_ALL, 10);

    FirePlan plan = planner.plan(List.of(late), Map.of("c", task), Set.of(), now);

    assertThat(plan.skip())
        .as("the oldest slot is beyond the cap")
        .containsEntry(FirePlanner.SKIP_DROPPED + ", 45 firings", List.of(1L));
    assertThat(plan.firingsOf(1L)).isEqualTo(45);
    List<NewInstance> created = plan.successorsOf(late.instanceId());
    List<NewInstance> catchUp =
        created.stream().filter(n -> n.reason().equals(FirePlanner.REASON_CATCH_UP)).toList();
    assertThat(catchUp).hasSize(10);
    assertThat(catchUp).allSatisfy(n -> assertThat(n.dueAtMs()).isEqualTo(now));
  }

  @Test
  void aCatchUpInstanceFiresWithoutExtendingTheChain() {
    long now = T0 + 60_000;
    DueInstance catchUp = row("c", T0 + 30_000, now, 7); // slot 30 s ago, due now

    FirePlan plan = planEverySecond(catchUp, MisfirePolicy.FIRE_ALL, now + 5);

    assertThat(plan.dispatch()).containsExactly(7L);
    assertThat(plan.successors()).isEmpty();
  }

  @Test
  void aNonConcurrentTaskStillRunningIsSkippedByDefaultButKeepsItsChain() {
    DueInstance row = row("nc", T0, T0, 3);
    StoredTask task = nonConcurrent(ConcurrencyPolicy.SKIP);

    FirePlan plan = planner.plan(List.of(row), Map.of("nc", task), Set.of("nc"), T0 + 10);

    assertThat(plan.dispatch()).isEmpty();
    assertThat(plan.skip()).hasSize(1).containsValue(List.of(3L));
    assertThat(plan.skip().keySet().iterator().next()).startsWith("overlap: ").endsWith("SKIP)");
    assertThat(successorIds(plan)).containsExactly("nc@" + (T0 + 10_000));
  }

  @Test
  void aTaskWithTheOlderDelayPolicyHoldsItsFiringAndItsChainGoesOn() {
    DueInstance row = row("nc", T0, T0, 3);
    StoredTask task = nonConcurrent(ConcurrencyPolicy.DELAY); // BUFFER_ONE

    FirePlan plan = planner.plan(List.of(row), Map.of("nc", task), Set.of("nc"), T0 + 10);

    assertThat(plan.hold()).hasSize(1).containsValue(List.of(3L));
    assertThat(plan.dispatch()).isEmpty();
    assertThat(successorIds(plan)).containsExactly("nc@" + (T0 + 10_000));
  }

  @Test
  void aOneShotTaskRunsEveryFiringWhateverItsOverlapPolicy() {
    StoredTask task =
        nonConcurrent(
            "nc", new Trigger.Once(Instant.ofEpochMilli(T0), null), ConcurrencyPolicy.SKIP);

    FirePlan plan =
        planner.plan(
            List.of(row("nc", T0, T0, 1), row("nc", T0 + 1, T0 + 1, 2)),
            Map.of("nc", task),
            Set.of("nc"),
            T0 + 10);

    assertThat(plan.dispatch()).containsExactly(1L, 2L);
    assertThat(plan.skip()).isEmpty();
  }

  @Test
  void onceTasksAndMissingTasksJustFire() {
    StoredTask once = task("o", Trigger.Once.after(Duration.ZERO));

    FirePlan plan =
        planner.plan(
            List.of(row("o", T0, T0, 1), row("gone", T0, T0, 2)),
            Map.of("o", once),
            Set.of(),
            T0 + 3_600_000);

    assertThat(plan.dispatch()).containsExactly(1L, 2L);
    assertThat(plan.successors()).isEmpty();
  }

  @Test
  void aFixedRateWhoseNextSlotOverflowsFiresAndEndsItsChain() {
    StoredTask huge =
        task(
            "r",
            new Trigger.FixedRate(Duration.ofMillis(Long.MAX_VALUE), null),
            MisfirePolicy.FIRE_ALL);

    for (long nowMs : new long[] {T0, T0 + 3_600_000}) { // on time, and an hour late (misfire)
      FirePlan plan =
          planner.plan(List.of(row("r", T0, T0, 1)), Map.of("r", huge), Set.of(), nowMs);

      assertThat(plan.dispatch()).containsExactly(1L);
      assertThat(successorIds(plan)).isEmpty();
      assertThat(plan.chainsEnded()).containsExactly(Map.entry("r@" + T0, "r"));
    }
  }

  @Test
  void rowsWithExtremeTimesArePlannedWithoutOverflow() {
    StoredTask rate = task("r", new Trigger.FixedRate(Duration.ofSeconds(1), null));

    FirePlan plan =
        planner.plan(
            List.of(row("r", Long.MIN_VALUE, Long.MAX_VALUE, 1)), Map.of("r", rate), Set.of(), T0);

    // Due long after its slot: a catch-up row, which fires and does not extend the chain.
    assertThat(plan.dispatch()).containsExactly(1L);
    assertThat(successorIds(plan)).isEmpty();
  }
}
