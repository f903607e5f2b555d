package dev.ax.ticker.fire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.ScheduleRules;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.schedule.Jitter;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.testing.TestTasks;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The firing plan's overlap policies, catch-up window and jitter, one rule per test. */
class SchedulePlanTest {

  private static final Duration THRESHOLD = Duration.ofSeconds(5);
  private static final long T0 = Instant.parse("2026-06-01T12:00:00Z").toEpochMilli();

  private final FirePlanner planner = new FirePlanner(new FireTimes(), THRESHOLD);

  /** Task "p": every 10 s from T0, with {@code rules}. */
  private static StoredTask every10s(ScheduleRules rules) {
    TaskSpec spec =
        TestTasks.noop("p", new Trigger.FixedRate(Duration.ofSeconds(10), Instant.ofEpochMilli(T0)))
            .withRules(rules);
    return TestTasks.stored(spec);
  }

  private static StoredTask every10s(OverlapPolicy overlap) {
    return every10s(ScheduleRules.DEFAULT.withOverlap(overlap));
  }

  private static DueInstance row(long slotMs, long seq) {
    return new DueInstance("p@" + slotMs, "p", slotMs, "trace", seq, 1);
  }

  private static TaskOverlap running(long... waitingSlots) {
    List<TaskOverlap.Waiting> waiting =
        java.util.Arrays.stream(waitingSlots)
            .mapToObj(slot -> new TaskOverlap.Waiting(100 + slot % 1000, "p@" + slot, slot))
            .toList();
    return new TaskOverlap(
        List.of(new TaskOverlap.RunInFlight(7, "p@" + (T0 - 10_000), InstanceStatus.RUNNING)),
        waiting);
  }

  private FirePlan plan(StoredTask task, List<DueInstance> rows, TaskOverlap live, long nowMs) {
    return planner.plan(rows, Map.of("p", task), Map.of("p", live), Set.of(), nowMs);
  }

  private static List<String> successorIds(FirePlan plan) {
    return plan.successors().values().stream()
        .flatMap(List::stream)
        .map(NewInstance::instanceId)
        .toList();
  }

  @Test
  void allowAllRunsWhateverIsInFlight() {
    FirePlan plan = plan(every10s(OverlapPolicy.ALLOW_ALL), List.of(row(T0, 1)), running(), T0);

    assertThat(plan.dispatch()).containsExactly(1L);
  }

  @Test
  void skipRecordsTheFiringAndTheChainGoesOn() {
    FirePlan plan = plan(every10s(OverlapPolicy.SKIP), List.of(row(T0, 1)), running(), T0);

    assertThat(plan.dispatch()).isEmpty();
    assertThat(plan.skip()).hasSize(1).containsValue(List.of(1L));
    assertThat(NotRunReason.of(plan.skip().keySet().iterator().next()))
        .isEqualTo(NotRunReason.OVERLAP);
    assertThat(successorIds(plan)).containsExactly("p@" + (T0 + 10_000));
  }

  @Test
  void bufferOneHoldsOneFiringAndSkipsTheNextWhileOneWaits() {
    StoredTask task = every10s(OverlapPolicy.BUFFER_ONE);

    FirePlan first = plan(task, List.of(row(T0, 1)), running(T0), T0);
    FirePlan second =
        plan(task, List.of(row(T0 + 10_000, 2)), running(T0, T0 + 10_000), T0 + 10_000);

    assertThat(first.hold()).hasSize(1).containsValue(List.of(1L));
    assertThat(successorIds(first)).as("a held firing keeps the chain").hasSize(1);
    assertThat(second.skip()).hasSize(1).containsValue(List.of(2L));
    assertThat(second.skip().keySet().iterator().next()).contains("buffer full");
  }

  @Test
  void bufferAllHoldsUpToItsLimitOldestFirst() {
    StoredTask task = every10s(OverlapPolicy.BUFFER_ALL);
    long[] waiting = new long[OverlapPolicy.MAX_BUFFERED + 1];
    for (int i = 0; i < waiting.length; i++) {
      waiting[i] = T0 + i * 10_000L;
    }
    long last = waiting[waiting.length - 1];

    FirePlan underLimit = plan(task, List.of(row(waiting[5], 1)), running(waiting), last);
    FirePlan atLimit = plan(task, List.of(row(last, 2)), running(waiting), last);

    assertThat(underLimit.hold()).containsValue(List.of(1L));
    assertThat(atLimit.skip()).containsValue(List.of(2L));
  }

  @Test
  void aBufferedFiringWaitsBehindAnOlderOneEvenWhenNothingRuns() {
    StoredTask task = every10s(OverlapPolicy.BUFFER_ALL);
    TaskOverlap olderWaits =
        new TaskOverlap(List.of(), List.of(new TaskOverlap.Waiting(50, "p@" + T0, T0)));

    FirePlan plan = plan(task, List.of(row(T0 + 10_000, 2)), olderWaits, T0 + 10_000);
    FirePlan both = plan(task, List.of(row(T0, 50), row(T0 + 10_000, 2)), olderWaits, T0 + 10_000);

    assertThat(plan.hold()).containsValue(List.of(2L));
    assertThat(both.dispatch()).as("the older first").containsExactly(50L);
    assertThat(both.hold()).containsValue(List.of(2L));
  }

  @Test
  void aHeldFiringIsLookedAtAgainWithoutPlanningItsTriggerTwice() {
    StoredTask task = every10s(OverlapPolicy.BUFFER_ONE);
    DueInstance held = row(T0, 1);

    FirePlan stillBusy =
        planner.plan(
            List.of(held), Map.of("p", task), Map.of("p", running(T0)), Set.of(1L), T0 + 60_000);
    FirePlan free =
        planner.plan(
            List.of(held),
            Map.of("p", task),
            Map.of(
                "p",
                new TaskOverlap(List.of(), List.of(new TaskOverlap.Waiting(1, "p@" + T0, T0)))),
            Set.of(1L),
            T0 + 60_000);

    assertThat(stillBusy.delay()).containsExactly(1L);
    assertThat(stillBusy.successors()).as("created at its first hold").isEmpty();
    assertThat(stillBusy.skip()).as("not a misfire: it was held, not missed").isEmpty();
    assertThat(free.dispatch()).containsExactly(1L);
  }

  @Test
  void aBusyTasksFiringFiredAheadIsDecidedAtItsDueTimeNotBefore() {
    // The ticker fires 100 ms ahead: the run in flight may still end before the slot.
    FirePlan ahead = plan(every10s(OverlapPolicy.SKIP), List.of(row(T0, 1)), running(), T0 - 100);
    FirePlan idleAhead =
        plan(every10s(OverlapPolicy.SKIP), List.of(row(T0, 1)), TaskOverlap.IDLE, T0 - 100);
    FirePlan allowAhead =
        plan(every10s(OverlapPolicy.ALLOW_ALL), List.of(row(T0, 1)), running(), T0 - 100);

    assertThat(ahead.notYet()).containsEntry(1L, T0);
    assertThat(ahead.skip()).isEmpty();
    assertThat(ahead.dispatch()).isEmpty();
    assertThat(idleAhead.dispatch()).as("an idle task still fires ahead").containsExactly(1L);
    assertThat(allowAhead.dispatch()).containsExactly(1L);
  }

  @Test
  void aRowDueBeforeItsSlotBySymmetricJitterIsNoMisfireWhileItsSlotIsAhead() {
    ScheduleRules symmetric =
        new ScheduleRules(OverlapPolicy.ALLOW_ALL, null, Duration.ofMinutes(30), true, List.of());
    long slot = T0 + 20 * 60_000;
    // Due 20 minutes before its slot, looked at 10 minutes after that due time: late by more
    // than the threshold, yet its slot is still ahead.
    DueInstance early = new DueInstance("p@" + slot, "p", slot - 20 * 60_000, "trace", 1, 1);

    FirePlan plan = plan(every10s(symmetric), List.of(early), TaskOverlap.IDLE, slot - 10 * 60_000);

    assertThat(plan.dispatch()).containsExactly(1L);
    assertThat(plan.skip()).isEmpty();
    assertThat(successorIds(plan)).containsExactly("p@" + (slot + 10_000));
  }

  @Test
  void aCatchUpWindowShorterThanTheThresholdStillRunsTheSlotsJustDue() {
    ScheduleRules zero =
        new ScheduleRules(OverlapPolicy.ALLOW_ALL, Duration.ZERO, Duration.ZERO, false, List.of());

    // 13 s after T0: T0 is missed; T0+10 s is 3 s late, within the 5 s threshold: on time.
    FirePlan plan = plan(every10s(zero), List.of(row(T0, 1)), TaskOverlap.IDLE, T0 + 13_000);

    assertThat(plan.skip()).hasSize(1).containsValue(List.of(1L));
    assertThat(plan.firingsOf(1L)).isEqualTo(1);
    assertThat(plan.successorsOf("p@" + T0))
        .extracting(NewInstance::instanceId, NewInstance::dueAtMs)
        .contains(
            org.assertj.core.groups.Tuple.tuple("p@" + (T0 + 10_000), T0 + 10_000),
            org.assertj.core.groups.Tuple.tuple("p@" + (T0 + 20_000), T0 + 20_000));
  }

  @Test
  void anOperatorsRunNowRunsWhateverThePolicy() {
    DueInstance runNow = new DueInstance("p@run:op-1", "p", T0, "trace", 9, 1);

    FirePlan plan = plan(every10s(OverlapPolicy.SKIP), List.of(runNow), running(), T0);

    assertThat(plan.dispatch()).containsExactly(9L);
  }

  @Test
  void cancelOtherCancelsTheRunInFlightAndDispatches() {
    FirePlan plan = plan(every10s(OverlapPolicy.CANCEL_OTHER), List.of(row(T0, 1)), running(), T0);

    assertThat(plan.dispatch()).containsExactly(1L);
    assertThat(plan.cancel()).containsEntry(InstanceStatus.RUNNING, List.of(7L));
  }

  @Test
  void catchUpWindowRunsWhatIsWithinItAndRecordsTheRestAsMissed() {
    ScheduleRules window =
        new ScheduleRules(
            OverlapPolicy.ALLOW_ALL, Duration.ofSeconds(30), Duration.ZERO, false, List.of());
    long now = T0 + 120_000;

    FirePlan plan = plan(every10s(window), List.of(row(T0, 1)), TaskOverlap.IDLE, now);

    // Slots T0 .. T0+80 s are older than now - 30 s: missed, the late row standing for all 9.
    assertThat(plan.skip()).hasSize(1).containsValue(List.of(1L));
    String reason = plan.skip().keySet().iterator().next();
    assertThat(NotRunReason.of(reason)).isEqualTo(NotRunReason.MISSED);
    assertThat(reason).startsWith("missed: 9 firing(s)");
    assertThat(plan.firingsOf(1L)).isEqualTo(9);
    // T0+90 s and T0+100 s fire late (catch-up); T0+110 s and T0+120 s are just due; then next.
    assertThat(successorIds(plan))
        .containsExactly(
            "p@" + (T0 + 90_000),
            "p@" + (T0 + 100_000),
            "p@" + (T0 + 110_000),
            "p@" + (T0 + 120_000),
            "p@" + (T0 + 130_000));
  }

  @Test
  void aLateRowWithinTheCatchUpWindowRuns() {
    ScheduleRules window =
        new ScheduleRules(
            OverlapPolicy.ALLOW_ALL, Duration.ofMinutes(5), Duration.ZERO, false, List.of());

    FirePlan plan = plan(every10s(window), List.of(row(T0, 1)), TaskOverlap.IDLE, T0 + 60_000);

    assertThat(plan.dispatch()).containsExactly(1L);
    assertThat(plan.skip()).isEmpty();
  }

  @Test
  void successorsAreDueAtTheirJitteredTimeAndKeepTheirSlotIds() {
    ScheduleRules jitter =
        new ScheduleRules(OverlapPolicy.ALLOW_ALL, null, Duration.ofSeconds(3), false, List.of());
    StoredTask task = every10s(jitter);
    long slot = T0 + 10_000;

    FirePlan plan = plan(task, List.of(row(T0, 1)), TaskOverlap.IDLE, T0);

    NewInstance next = plan.successorsOf("p@" + T0).get(0);
    assertThat(next.instanceId()).isEqualTo("p@" + slot);
    assertThat(next.dueAtMs())
        .isEqualTo(Jitter.dueAtMs("p", slot, jitter))
        .isBetween(slot, slot + 3_000);
  }

  @Test
  void aJitteredRowIsStillAChainRowNotACatchUp() {
    ScheduleRules jitter =
        new ScheduleRules(OverlapPolicy.ALLOW_ALL, null, Duration.ofSeconds(30), false, List.of());
    // Due 20 s after its slot: more than the misfire threshold, within the jitter.
    DueInstance jittered = new DueInstance("p@" + T0, "p", T0 + 20_000, "trace", 1, 1);

    FirePlan plan = plan(every10s(jitter), List.of(jittered), TaskOverlap.IDLE, T0 + 20_000);

    assertThat(plan.dispatch()).containsExactly(1L);
    assertThat(successorIds(plan)).containsExactly("p@" + (T0 + 10_000));
  }
}
