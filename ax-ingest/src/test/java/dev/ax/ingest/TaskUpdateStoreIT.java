package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.ax.common.model.ConcurrencyPolicy;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.DueInstance;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ingest.TaskLifecycleStore.Request;
import dev.ax.ingest.TaskLifecycleStore.Result;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link TaskUpdateStore} on the real database, called directly: an UPDATE in each task state, the
 * first firing of the new version (the new schedule's next slot: superseded slots that never fired
 * removed, the chain kept, no extra run), what it leaves alone (runs in flight, RUN_NOW's
 * instance), replays and stale redeliveries, and the refusals (README, "UPDATE"). {@link
 * TaskUpdateRulesIT} has the scenarios that once ended a chain; this class is the rule table. One
 * database for the class: each case has tasks of its own.
 */
@ExtendWith(AxInfraExtension.class)
class TaskUpdateStoreIT {

  /** A whole hour (UTC), in the future. */
  private static final long T0_MS = 1_900_000_800_000L;

  private static final long MINUTE_MS = 60_000L;
  private static final long HOUR_MS = 60 * MINUTE_MS;

  /** When every UPDATE here applies: five minutes before T0. */
  private static final long NOW_MS = T0_MS - 5 * MINUTE_MS;

  private static final String HOURLY = "0 0 * * * ?";
  private static final String HALF_PAST = "0 30 * * * ?";

  private static TestRuntime runtime;
  private static LifecycleRows rows;
  private static TaskUpdateStore store;

  @BeforeAll
  static void openDatabase(AxTestEnv env) {
    runtime = TestRuntime.open(env);
    rows = new LifecycleRows(runtime.dataSource());
    store = new TaskUpdateStore(runtime.dataSource(), new FireTimes());
  }

  @AfterAll
  static void closeDatabase() {
    runtime.close();
  }

  /**
   * An UPDATE of an hourly task (ENDED: a ONCE task whose run succeeded) to {@code newTrigger}
   * ({@code half-past}: "0 30 * * * ?"; {@code once}: its ONCE spec again). {@code outcome}: the
   * task's state after it, or the refusal; {@code firstFiring}: the status of the new version's
   * first firing (at T0+30 min), or {@code none}.
   */
  @ParameterizedTest(name = "{0} task, UPDATE to {1}: {2}, first firing {3}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          ACTIVE    | half-past | -> ACTIVE                              | SCHEDULED
          PAUSED    | half-past | -> PAUSED                              | PAUSED
          ENDED     | half-past | -> ACTIVE                              | SCHEDULED
          ENDED     | once      | -> ENDED                               | none
          CANCELLED | half-past | UPDATE of task {id}, which is CANCELLED | none
          DELETED   | half-past | UPDATE of task {id}, which is DELETED   | none
          """)
  void anUpdateInEachTaskState(
      String state, String newTrigger, String outcome, String firstFiring) {
    String taskId = "u-" + state.toLowerCase() + "-" + newTrigger;
    String oldSlot = taskIn(taskId, state);
    String oldSlotStatus = rows.statuses(taskId).get(oldSlot);
    TaskSpec spec =
        newTrigger.equals("once") ? TestTasks.onceNoop(taskId) : cron(taskId, HALF_PAST);
    String first = InstanceIds.of(taskId, T0_MS + 30 * MINUTE_MS);

    Result result = store.update(request("u-1", taskId), spec);

    if (outcome.startsWith("-> ")) {
      assertThat(result).isInstanceOf(Result.Applied.class);
      assertThat(rows.taskState(taskId)).isEqualTo(outcome.substring(3));
      assertThat(rows.taskVersion(taskId)).isEqualTo(2);
      assertThat(rows.recorded(taskId, "u-1")).containsExactly("UPDATE");
      assertThat(rows.one("SELECT COUNT(*) FROM ax_task_version WHERE task_id = ?", taskId))
          .as("the superseded spec is kept")
          .isEqualTo("1");
    } else {
      assertThat(result).isEqualTo(new Result.Refused(outcome.replace("{id}", taskId)));
      assertThat(rows.taskState(taskId)).isEqualTo(state);
      assertThat(rows.taskVersion(taskId)).isEqualTo(1);
      assertThat(rows.recorded(taskId, "u-1")).isEmpty();
      assertThat(rows.statuses(taskId)).containsOnly(entry(oldSlot, oldSlotStatus));
    }
    if (firstFiring.equals("none")) {
      assertThat(rows.statuses(taskId)).doesNotContainKey(first);
    } else {
      assertThat(rows.statuses(taskId)).containsEntry(first, firstFiring);
      assertThat(rows.versions(taskId)).containsEntry(first, 2);
      assertThat(((Result.Applied) result).toAnnounce())
          .extracting(DueInstance::instanceId)
          .as("announced unless held")
          .isEqualTo(firstFiring.equals("SCHEDULED") ? List.of(first) : List.of());
    }
    if (result instanceof Result.Applied && !state.equals("ENDED")) {
      assertThat(rows.statuses(taskId)).as("the superseded slot").doesNotContainKey(oldSlot);
      assertThat(rows.moves(oldSlot))
          .containsExactly(
              oldSlotStatus
                  + ">CANCELLED: superseded by version 2 (command u-1): removed, never fired");
    }
  }

  /**
   * A periodic task whose slot fired (its successor pending): the UPDATE's first firing is the new
   * schedule's next slot after now (FIXED_RATE in phase with the last firing), exactly one pending
   * firing is left, and the same schedule keeps the successor.
   */
  @ParameterizedTest(name = "{0} to {1}: next firing at T0{2} min")
  @CsvSource({
    "hourly,     half-past, +30",
    "hourly,     hourly,    +0",
    "every-10m, every-30m, +20",
    "every-10m, every-10m, +0"
  })
  void theChainGoesOnFromTheNewSchedule(String from, String to, long firstAtT0PlusMinutes) {
    String taskId = "chain-" + from + "-" + to;
    long firedMs = from.equals("hourly") ? T0_MS - HOUR_MS : T0_MS - 10 * MINUTE_MS;
    String fired = rows.create(spec(taskId, from), firedMs, firedMs - MINUTE_MS);
    rows.setStatus(fired, "SUCCESS", 1);
    String successor = InstanceIds.of(taskId, T0_MS);
    rows.addInstance(successor, taskId, T0_MS, "SCHEDULED", 0);

    assertThat(store.update(request("u-1", taskId), spec(taskId, to)))
        .isInstanceOf(Result.Applied.class);

    String next = InstanceIds.of(taskId, T0_MS + firstAtT0PlusMinutes * MINUTE_MS);
    assertThat(rows.statuses(taskId))
        .as("the run that happened, and one next firing")
        .containsOnly(entry(fired, "SUCCESS"), entry(next, "SCHEDULED"));
    assertThat(rows.versions(taskId)).containsEntry(next, 2).containsEntry(fired, 1);
  }

  /**
   * Runs in flight (DISPATCHED, RUNNING, RETRYING) keep the version they were fired with, and
   * RUN_NOW's pending instance survives; only the superseded slot goes.
   */
  @Test
  void runsInFlightAndRunNowAreLeftAsTheyAre() {
    String taskId = "u-in-flight";
    String slot = rows.create(cron(taskId, HOURLY), T0_MS, NOW_MS - MINUTE_MS);
    Map<String, String> kept =
        Map.of(
            InstanceIds.of(taskId, T0_MS - HOUR_MS), "DISPATCHED",
            InstanceIds.of(taskId, T0_MS - 2 * HOUR_MS), "RUNNING",
            InstanceIds.of(taskId, T0_MS - 3 * HOUR_MS), "RETRYING",
            InstanceIds.inFlow(taskId, "run:op-1"), "SCHEDULED");
    kept.forEach(
        (id, status) ->
            rows.addInstance(id, taskId, T0_MS - 10, status, status.equals("RETRYING") ? 1 : 0));

    assertThat(store.update(request("u-1", taskId), cron(taskId, HALF_PAST)))
        .isInstanceOf(Result.Applied.class);

    Map<String, String> statuses = rows.statuses(taskId);
    assertThat(statuses).containsAllEntriesOf(kept).doesNotContainKey(slot).hasSize(5);
    kept.keySet().forEach(id -> assertThat(rows.versions(taskId)).containsEntry(id, 1));
    assertThat(statuses).containsEntry(InstanceIds.of(taskId, T0_MS + 30 * MINUTE_MS), "SCHEDULED");
  }

  /**
   * A paused task's UPDATE: its held run (an attempt already made, waiting for the RESUME) keeps
   * its version; its held slot that never fired goes, and the new first firing is created held.
   */
  @Test
  void aPausedTasksHeldRunKeepsItsVersion() {
    String taskId = "u-paused-held-run";
    String slot = taskIn(taskId, "PAUSED");
    String heldRun = InstanceIds.of(taskId, T0_MS - HOUR_MS);
    rows.addInstance(heldRun, taskId, T0_MS - HOUR_MS, "PAUSED", 1);

    assertThat(store.update(request("u-1", taskId), cron(taskId, HALF_PAST)))
        .isInstanceOf(Result.Applied.class);

    String first = InstanceIds.of(taskId, T0_MS + 30 * MINUTE_MS);
    assertThat(rows.statuses(taskId))
        .doesNotContainKey(slot)
        .containsOnly(entry(heldRun, "PAUSED"), entry(first, "PAUSED"));
    assertThat(rows.versions(taskId)).containsOnly(entry(heldRun, 1), entry(first, 2));
  }

  /** An UPDATE whose first firing is the pending slot keeps that row, now at the new version. */
  @Test
  void thePendingSlotOfTheNewScheduleIsKept() {
    String taskId = "u-same-slot";
    String slot = rows.create(cron(taskId, HOURLY), T0_MS, NOW_MS - MINUTE_MS);
    TaskSpec skipping =
        TestTasks.noop(
            taskId,
            new Trigger.Cron(HOURLY, ZoneOffset.UTC),
            MisfirePolicy.SKIP,
            MisfirePolicy.DEFAULT_MAX_FIRE_ALL,
            true,
            ConcurrencyPolicy.DEFAULT);

    assertThat(store.update(request("u-1", taskId), skipping))
        .as("kept, so nothing new to announce")
        .isEqualTo(new Result.Applied(1, List.of()));

    assertThat(rows.statuses(taskId)).containsOnly(entry(slot, "SCHEDULED"));
    assertThat(rows.versions(taskId)).containsOnly(entry(slot, 2));
    assertThat(rows.moves(slot))
        .containsExactly("SCHEDULED>SCHEDULED: now version 2 (command u-1)");
  }

  /** A ONCE task that has not fired keeps its time; a delay counts from the task's creation. */
  @Test
  void aOnceTaskNotFiredYetCountsItsDelayFromCreation() {
    String taskId = "u-once-delay";
    long createdMs = T0_MS - 10 * MINUTE_MS;
    String slot =
        rows.create(
            TestTasks.noop(taskId, Trigger.Once.after(Duration.ofMinutes(10))), T0_MS, createdMs);

    assertThat(
            store.update(
                request("u-1", taskId),
                TestTasks.noop(taskId, Trigger.Once.after(Duration.ofMinutes(20)))))
        .isInstanceOf(Result.Applied.class);

    assertThat(rows.statuses(taskId))
        .doesNotContainKey(slot)
        .containsOnly(entry(InstanceIds.of(taskId, createdMs + 20 * MINUTE_MS), "SCHEDULED"));
    assertThat(rows.taskState(taskId)).isEqualTo("ACTIVE");
  }

  /**
   * The same command again changes nothing, even after a later UPDATE (a stale redelivery): the
   * later version stays, with its schedule.
   */
  @Test
  void aReplayedOrStaleUpdateChangesNothing() {
    String taskId = "u-replay";
    rows.create(cron(taskId, HOURLY), T0_MS, NOW_MS - MINUTE_MS);
    assertThat(store.update(request("u-1", taskId), cron(taskId, HALF_PAST)))
        .isInstanceOf(Result.Applied.class);
    assertThat(store.update(request("u-1", taskId), cron(taskId, HALF_PAST)))
        .isEqualTo(new Result.Duplicate());
    assertThat(rows.taskVersion(taskId)).isEqualTo(2);
    assertThat(store.update(request("u-2", taskId), cron(taskId, "0 15 * * * ?")))
        .isInstanceOf(Result.Applied.class);

    assertThat(store.update(request("u-1", taskId), cron(taskId, HALF_PAST)))
        .isEqualTo(new Result.Duplicate());

    assertThat(rows.taskVersion(taskId)).isEqualTo(3);
    assertThat(rows.one("SELECT spec_json FROM ax_task WHERE task_id = ?", taskId))
        .contains("0 15 * * * ?");
    assertThat(rows.statuses(taskId))
        .containsOnly(entry(InstanceIds.of(taskId, T0_MS + 15 * MINUTE_MS), "SCHEDULED"));
    assertThat(
            rows.rows("SELECT version FROM ax_task_version WHERE task_id = ? ORDER BY 1", taskId))
        .containsExactly(List.of("1"), List.of("2"));
  }

  /** Refused, and nothing changed: the reason says why. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          dependency  | UPDATE cannot make task {id} a DEPENDENCY task; cancel it and create another
          years-over  | trigger never fires: no fire time after now
          """)
  void aRefusedUpdateChangesNothing(String change, String reason) {
    String taskId = "u-refused-" + change;
    String slot = rows.create(cron(taskId, HOURLY), T0_MS, NOW_MS - MINUTE_MS);
    TaskSpec spec =
        change.equals("dependency")
            ? TestTasks.noop(taskId, new Trigger.Dependency(List.of("upstream")))
            : cron(taskId, "0 0 0 1 1 ? 2020");

    assertThat(store.update(request("u-1", taskId), spec))
        .isEqualTo(new Result.Refused(reason.replace("{id}", taskId)));

    assertThat(rows.taskVersion(taskId)).isEqualTo(1);
    assertThat(rows.statuses(taskId)).containsOnly(entry(slot, "SCHEDULED"));
    assertThat(rows.recorded(taskId, "u-1")).isEmpty();
  }

  @Test
  void anUpdateOfAnUnknownTaskIsRefused() {
    assertThat(store.update(request("u-1", "no-such-task"), cron("no-such-task", HOURLY)))
        .isEqualTo(new Result.Refused("UPDATE for unknown task no-such-task"));
  }

  /** A new task in {@code state} with its slot (at T0; ENDED: a ONCE run that succeeded). */
  private static String taskIn(String taskId, String state) {
    if (state.equals("ENDED")) {
      String slot = rows.create(TestTasks.onceNoop(taskId), T0_MS - HOUR_MS, T0_MS - HOUR_MS);
      rows.setStatus(slot, "SUCCESS", 1);
      rows.setTaskState(taskId, "ENDED");
      return slot;
    }
    String slot = rows.create(cron(taskId, HOURLY), T0_MS, NOW_MS - MINUTE_MS);
    if (!state.equals("ACTIVE")) {
      rows.setStatus(slot, state.equals("PAUSED") ? "PAUSED" : "CANCELLED", 0);
      rows.setTaskState(taskId, state);
    }
    return slot;
  }

  private static TaskSpec spec(String taskId, String schedule) {
    return switch (schedule) {
      case "hourly" -> cron(taskId, HOURLY);
      case "half-past" -> cron(taskId, HALF_PAST);
      default ->
          TestTasks.noop(
              taskId,
              new Trigger.FixedRate(
                  Duration.ofMinutes(Long.parseLong(schedule.replaceAll("\\D", ""))), null));
    };
  }

  private static TaskSpec cron(String taskId, String expression) {
    return TestTasks.noop(taskId, new Trigger.Cron(expression, ZoneOffset.UTC));
  }

  private static Request request(String commandId, String taskId) {
    return new Request(commandId, taskId, null, null, "trace", "test", NOW_MS, false);
  }
}
