package dev.ax.ticker.fire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.ScheduleRules;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.testing.TestTasks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The overlap policies as a model: from a printed seed, one periodic task (every second) whose runs
 * last a random 0.1-3.5 s, and a random walk of time, with the firing plan applied to an in-memory
 * store as {@code FiringStore.fire} applies it (dispatch, skip, hold, cancel, successors) and the
 * runs ending when their time comes. After every step the rules are checked against what the store
 * holds:
 *
 * <ul>
 *   <li>the chain never breaks (one SCHEDULED slot ahead, or a held one with its successor), no
 *       slot has two rows, and nothing is dispatched before its due time;
 *   <li>SKIP, BUFFER_ONE, BUFFER_ALL, CANCEL_OTHER: never two runs at once;
 *   <li>SKIP: a firing is skipped exactly when a run was in flight as it was planned;
 *   <li>BUFFER_ONE: at most one firing waits; BUFFER_ALL: at most 100 (runs outlasting the period
 *       fill it within minutes); a firing is skipped only when the buffer is full; both dispatch in
 *       slot order;
 *   <li>CANCEL_OTHER: no firing is skipped; a run in flight when a firing comes is cancelled;
 *   <li>ALLOW_ALL: every firing runs.
 * </ul>
 *
 * A failure names the seed and the policy; re-running that case repeats it exactly.
 */
class OverlapModelTest {

  private static final Duration THRESHOLD = Duration.ofSeconds(5);
  private static final long T0 = Instant.parse("2026-06-01T12:00:00Z").toEpochMilli();
  private static final long PERIOD_MS = 1_000;
  private static final int STEPS = 400;

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (OverlapPolicy policy : OverlapPolicy.values()) {
      for (long seed : new long[] {1, 42, 7_000_001}) {
        cases.add(Arguments.of(policy, seed));
      }
    }
    return cases.stream();
  }

  /** A row of the in-memory store. */
  private static final class Row {
    final long seq;
    final String instanceId;
    final long slotMs;
    final long dueMs;
    InstanceStatus status = InstanceStatus.SCHEDULED;
    long endsAtMs;

    Row(long seq, String instanceId, long dueMs) {
      this.seq = seq;
      this.instanceId = instanceId;
      this.slotMs = InstanceIds.slotOf(instanceId);
      this.dueMs = dueMs;
    }

    DueInstance due() {
      return new DueInstance(instanceId, "p", dueMs, "trace", seq, 1);
    }
  }

  @ParameterizedTest(name = "{0} seed={1}")
  @MethodSource("cases")
  void theOverlapRulesHoldWhateverTheOrderOfFiringsAndRunEnds(OverlapPolicy policy, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    FirePlanner planner = new FirePlanner(new FireTimes(), THRESHOLD);
    StoredTask task =
        TestTasks.stored(
            TestTasks.noop(
                    "p",
                    new Trigger.FixedRate(Duration.ofMillis(PERIOD_MS), Instant.ofEpochMilli(T0)))
                .withRules(ScheduleRules.DEFAULT.withOverlap(policy)));
    Map<String, Row> rows = new LinkedHashMap<>();
    Set<Long> held = new HashSet<>();
    List<Long> dispatchedSlots = new ArrayList<>();
    long[] nextSeq = {1};
    create(rows, nextSeq, "p@" + T0, T0);
    long nowMs = T0;
    String where = "policy " + policy + ", seed " + seed;
    for (int step = 0; step < STEPS; step++) {
      // Mostly small steps; now and then a pause of seconds, and rarely one past the misfire
      // threshold (an outage): its catch-up brings several firings of the task due at once.
      int pause = random.nextInt(25);
      nowMs +=
          pause == 0
              ? 5_500 + random.nextInt(3_500)
              : pause < 3 ? 1_000 + random.nextInt(2_500) : random.nextInt(700);
      long now = nowMs;
      // Runs that end by now end (the dispatcher records SUCCESS).
      rows.values().stream()
          .filter(r -> r.status == InstanceStatus.RUNNING && r.endsAtMs <= now)
          .forEach(r -> r.status = InstanceStatus.SUCCESS);
      List<DueInstance> due =
          rows.values().stream()
              .filter(r -> r.status == InstanceStatus.SCHEDULED && r.dueMs <= now)
              .sorted((a, b) -> Long.compare(a.dueMs, b.dueMs))
              .map(Row::due)
              .toList();
      if (due.isEmpty()) {
        continue;
      }
      boolean runningBefore =
          rows.values().stream().anyMatch(r -> r.status == InstanceStatus.RUNNING);
      FirePlan plan = planner.plan(due, Map.of("p", task), Map.of("p", live(rows, now)), held, now);
      apply(plan, rows, held, nextSeq, random, now, dispatchedSlots);
      check(
          where + ", step " + step,
          policy,
          plan,
          due,
          rows,
          held,
          dispatchedSlots,
          runningBefore,
          now);
    }
    assertThat(dispatchedSlots).as(where + ": the task ran").isNotEmpty();
  }

  private static TaskOverlap live(Map<String, Row> rows, long nowMs) {
    List<TaskOverlap.RunInFlight> runs = new ArrayList<>();
    List<TaskOverlap.Waiting> waiting = new ArrayList<>();
    for (Row r : rows.values()) {
      if (r.status == InstanceStatus.RUNNING) {
        runs.add(new TaskOverlap.RunInFlight(r.seq, r.instanceId, InstanceStatus.RUNNING));
      } else if (r.status == InstanceStatus.SCHEDULED && r.dueMs <= nowMs) {
        waiting.add(new TaskOverlap.Waiting(r.seq, r.instanceId, r.dueMs));
      }
    }
    return new TaskOverlap(runs, waiting);
  }

  /** What FiringStore.fire does with the plan, on the in-memory rows. */
  private static void apply(
      FirePlan plan,
      Map<String, Row> rows,
      Set<Long> held,
      long[] nextSeq,
      SplittableRandom random,
      long nowMs,
      List<Long> dispatchedSlots) {
    Map<Long, Row> bySeq = new LinkedHashMap<>();
    rows.values().forEach(r -> bySeq.put(r.seq, r));
    List<Row> moved = new ArrayList<>();
    plan.cancel()
        .values()
        .forEach(seqs -> seqs.forEach(seq -> bySeq.get(seq).status = InstanceStatus.CANCELLED));
    for (long seq : plan.dispatch()) {
      Row row = bySeq.get(seq);
      row.status = InstanceStatus.RUNNING;
      row.endsAtMs = nowMs + 100 + random.nextInt(3_400);
      dispatchedSlots.add(row.slotMs);
      held.remove(seq);
      moved.add(row);
    }
    plan.skip()
        .values()
        .forEach(
            seqs ->
                seqs.forEach(
                    seq -> {
                      bySeq.get(seq).status = InstanceStatus.SKIPPED;
                      held.remove(seq);
                      moved.add(bySeq.get(seq));
                    }));
    plan.hold()
        .values()
        .forEach(
            seqs ->
                seqs.forEach(
                    seq -> {
                      held.add(seq);
                      moved.add(bySeq.get(seq));
                    }));
    for (Row row : moved) {
      for (NewInstance next : plan.successorsOf(row.instanceId)) {
        create(rows, nextSeq, next.instanceId(), next.dueAtMs());
      }
    }
  }

  private static void create(Map<String, Row> rows, long[] nextSeq, String id, long dueMs) {
    rows.computeIfAbsent(id, k -> new Row(nextSeq[0]++, id, dueMs)); // an existing id: nothing
  }

  private static void check(
      String where,
      OverlapPolicy policy,
      FirePlan plan,
      List<DueInstance> due,
      Map<String, Row> rows,
      Set<Long> held,
      List<Long> dispatchedSlots,
      boolean runningBefore,
      long nowMs) {
    long running = rows.values().stream().filter(r -> r.status == InstanceStatus.RUNNING).count();
    long scheduledAhead =
        rows.values().stream()
            .filter(r -> r.status == InstanceStatus.SCHEDULED && !held.contains(r.seq))
            .count();
    assertThat(scheduledAhead).as(where + ": the chain goes on").isGreaterThanOrEqualTo(1);
    Set<Long> dueSeqs = new HashSet<>();
    due.forEach(d -> dueSeqs.add(d.seq()));
    assertThat(dueSeqs)
        .as(where + ": nothing early (only due rows run)")
        .containsAll(plan.dispatch());
    // Waiting: held by the policy (a successor just created and already due is planned next).
    long waiting =
        rows.values().stream()
            .filter(r -> r.status == InstanceStatus.SCHEDULED && held.contains(r.seq))
            .count();
    long skippedNow = plan.skip().values().stream().mapToLong(List::size).sum();
    switch (policy) {
      case ALLOW_ALL -> assertThat(skippedNow).as(where + ": ALLOW_ALL runs all").isZero();
      case SKIP -> {
        assertThat(running).as(where + ": SKIP never overlaps").isLessThanOrEqualTo(1);
        if (runningBefore) {
          assertThat(plan.dispatch()).as(where + ": SKIP while a run is in flight").isEmpty();
          assertThat(skippedNow).isEqualTo(due.size());
        } else {
          assertThat(plan.dispatch()).as(where + ": SKIP runs the first when idle").hasSize(1);
        }
      }
      case BUFFER_ONE, BUFFER_ALL -> {
        assertThat(running).as(where + ": buffering never overlaps").isLessThanOrEqualTo(1);
        assertThat(waiting)
            .as(where + ": at most the buffer waits")
            .isLessThanOrEqualTo(policy.bufferLimit());
        assertThat(dispatchedSlots).as(where + ": oldest first").isSorted();
        if (skippedNow > 0) {
          assertThat(waiting)
              .as(where + ": a firing is dropped only when the buffer is full")
              .isEqualTo(policy.bufferLimit());
        }
      }
      case CANCEL_OTHER -> {
        assertThat(running).as(where + ": CANCEL_OTHER never overlaps").isLessThanOrEqualTo(1);
        assertThat(skippedNow).as(where + ": CANCEL_OTHER skips nothing").isZero();
        if (runningBefore && !plan.dispatch().isEmpty()) {
          assertThat(plan.cancel()).as(where + ": the run in flight is cancelled").isNotEmpty();
        }
      }
    }
    assertThat(rows.values().stream().map(r -> r.slotMs).distinct().count())
        .as(where + ": one row per slot")
        .isEqualTo(rows.size());
    assertThat(plan.dispatch().size())
        .as(where + ": one run at a time unless runs may overlap")
        .isLessThanOrEqualTo(policy == OverlapPolicy.ALLOW_ALL ? due.size() : 1);
  }
}
