package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskSpecCache;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The UPDATE rules on the real database, each a scenario that once ended or surprised a chain: a
 * superseded slot is removed and never blocks a later schedule (a revert A → B → A), the first
 * firing after an UPDATE is the new schedule's next slot (no extra run, none for a finished ONCE
 * task or a FIXED_DELAY run in flight), an UPDATE landing after a slot fired keeps the successor,
 * and RUN_NOW's instance survives an UPDATE.
 */
@ExtendWith(AxInfraExtension.class)
class TaskUpdateRulesIT {

  /** A whole minute, in the future, so that every-second slots are easy to name. */
  private static final long T0_MS = 1_900_000_020_000L;

  private static Trigger cron(String expression) {
    return new Trigger.Cron(expression, ZoneOffset.UTC);
  }

  @Test
  void aRevertFindsItsSlotFreeAndTheChainGoesOn(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      String taskId = "upd-revert";
      // 0/3 at T0: its pending slot is T0+3 s.
      create(runtime, TestTasks.noop(taskId, cron("0/3 * * * * ?")), T0_MS - 500, T0_MS + 3_000);
      TaskUpdateStore store = new TaskUpdateStore(runtime.dataSource(), new FireTimes());

      applied(store.update(request("u-1", taskId, T0_MS + 500), spec(taskId, "0/2 * * * * ?")));
      assertThat(pending(runtime, taskId)).containsOnlyKeys(InstanceIds.of(taskId, T0_MS + 2_000));
      assertThat(
              new InstanceStore(runtime.dataSource()).find(InstanceIds.of(taskId, T0_MS + 3_000)))
          .as("the superseded slot is removed, not kept CANCELLED")
          .isEmpty();

      applied(store.update(request("u-2", taskId, T0_MS + 700), spec(taskId, "0/3 * * * * ?")));
      assertThat(pending(runtime, taskId))
          .as("the reverted schedule's slot is free again")
          .containsOnlyKeys(InstanceIds.of(taskId, T0_MS + 3_000));
    }
  }

  @Test
  void anUpdateAfterTheSlotFiredKeepsTheSuccessor(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      String taskId = "upd-emit-ahead";
      create(runtime, TestTasks.noop(taskId, cron("0/4 * * * * ?")), T0_MS - 500, T0_MS + 4_000);
      // The ticker fired T0+4 s a little ahead of it and created the successor T0+8 s.
      String fired = InstanceIds.of(taskId, T0_MS + 4_000);
      String successor = InstanceIds.of(taskId, T0_MS + 8_000);
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_instance SET status = 'DISPATCHED', dispatched_at_ms = "
              + (T0_MS + 3_950)
              + " WHERE instance_id = '"
              + fired
              + "'");
      new InstanceStore(runtime.dataSource())
          .create(
              List.of(
                  new NewInstance(
                      successor, taskId, 1, T0_MS + 8_000, "t", "next firing", null, false)),
              "test",
              T0_MS + 3_950);

      // Same expression, landing within the emit-ahead before the slot.
      applied(
          new TaskUpdateStore(runtime.dataSource(), new FireTimes())
              .update(request("u-1", taskId, T0_MS + 3_980), spec(taskId, "0/4 * * * * ?")));

      assertThat(pending(runtime, taskId))
          .as("the chain goes on from the successor")
          .containsOnlyKeys(successor);
    }
  }

  @Test
  void aFixedRateUpdateFiresAtTheNewScheduleNextSlotNotAtOnce(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      String taskId = "upd-rate";
      Trigger every1s = new Trigger.FixedRate(Duration.ofSeconds(1), null);
      create(runtime, TestTasks.noop(taskId, every1s), T0_MS, T0_MS);
      ran(runtime, InstanceIds.of(taskId, T0_MS), T0_MS, T0_MS + 100);
      new InstanceStore(runtime.dataSource())
          .create(
              List.of(
                  new NewInstance(
                      InstanceIds.of(taskId, T0_MS + 1_000),
                      taskId,
                      1,
                      T0_MS + 1_000,
                      "t",
                      "next firing",
                      null,
                      false)),
              "test",
              T0_MS);

      applied(
          new TaskUpdateStore(runtime.dataSource(), new FireTimes())
              .update(
                  request("u-1", taskId, T0_MS + 400),
                  TestTasks.noop(taskId, new Trigger.FixedRate(Duration.ofSeconds(3), null))));

      assertThat(pending(runtime, taskId))
          .as("the first slot of the new grid after now, in phase with the last firing")
          .containsOnlyKeys(InstanceIds.of(taskId, T0_MS + 3_000));
    }
  }

  @Test
  void aOnceTaskThatRanIsNotRunAgainByAnUpdate(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      String taskId = "upd-once-ran";
      Trigger in5s = Trigger.Once.after(Duration.ofSeconds(5));
      create(runtime, TestTasks.noop(taskId, in5s), T0_MS, T0_MS + 5_000);
      ran(runtime, InstanceIds.of(taskId, T0_MS + 5_000), T0_MS + 5_000, T0_MS + 5_100);

      TaskLifecycleStore.Result result =
          new TaskUpdateStore(runtime.dataSource(), new FireTimes())
              .update(request("u-1", taskId, T0_MS + 20_000), TestTasks.noop(taskId, in5s));

      assertThat(result).isInstanceOf(TaskLifecycleStore.Result.Applied.class);
      assertThat(new InstanceStore(runtime.dataSource()).findByTask(taskId))
          .as("one instance: the run that happened")
          .hasSize(1);
      assertThat(new TaskStore(runtime.dataSource()).find(taskId).orElseThrow().version())
          .isEqualTo(2);
    }
  }

  @Test
  void aFixedDelayUpdateWhileARunIsInFlightAddsNoRun(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      String taskId = "upd-delay-running";
      Trigger delay = new Trigger.FixedDelay(Duration.ofSeconds(2), null);
      create(runtime, TestTasks.noop(taskId, delay), T0_MS, T0_MS);
      running(runtime, InstanceIds.of(taskId, T0_MS), T0_MS);

      applied(
          new TaskUpdateStore(runtime.dataSource(), new FireTimes())
              .update(
                  request("u-1", taskId, T0_MS + 1_000),
                  TestTasks.noop(taskId, new Trigger.FixedDelay(Duration.ofSeconds(9), null))));

      assertThat(pending(runtime, taskId))
          .as("the run's end chains the next firing, with the new interval")
          .isEmpty();
    }
  }

  @Test
  void runNowsInstanceSurvivesAnUpdate(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      String taskId = "upd-run-now";
      create(runtime, TestTasks.noop(taskId, cron("0 0 * * * ?")), T0_MS, T0_MS + 3_580_000);
      String extra = taskId + "@run:op-1";
      new InstanceStore(runtime.dataSource())
          .create(
              List.of(new NewInstance(extra, taskId, 1, T0_MS + 100, "t", "run now", null, false)),
              "test",
              T0_MS + 100);

      applied(
          new TaskUpdateStore(runtime.dataSource(), new FireTimes())
              .update(request("u-1", taskId, T0_MS + 200), spec(taskId, "0 30 * * * ?")));

      long halfPastMs =
          new FireTimes()
              .first(cron("0 30 * * * ?"), Instant.ofEpochMilli(T0_MS + 200))
              .orElseThrow()
              .toEpochMilli();
      assertThat(pending(runtime, taskId))
          .containsOnlyKeys(extra, InstanceIds.of(taskId, halfPastMs));
    }
  }

  @Test
  void eachRunGetsTheSpecVersionItWasFiredWith(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      String taskId = "upd-versions";
      create(runtime, spec(taskId, "0 0 * * * ?"), T0_MS, T0_MS + 3_580_000);
      applied(
          new TaskUpdateStore(runtime.dataSource(), new FireTimes())
              .update(request("u-1", taskId, T0_MS + 1_000), spec(taskId, "0 30 * * * ?")));

      TaskSpecCache specs = new TaskSpecCache(new TaskStore(runtime.dataSource()), 100);
      Map<String, StoredTask> exact =
          specs.exact(List.of(1, 2, 3), version -> taskId, version -> version);

      assertThat(exact)
          .containsOnlyKeys(TaskSpecCache.key(taskId, 1), TaskSpecCache.key(taskId, 2));
      assertThat(exact.get(TaskSpecCache.key(taskId, 1)).spec().trigger())
          .isEqualTo(cron("0 0 * * * ?"));
      assertThat(exact.get(TaskSpecCache.key(taskId, 2)).spec().trigger())
          .isEqualTo(cron("0 30 * * * ?"));
    }
  }

  @Test
  void anUpdateIntoAFullGroupIsRefusedAsACreateWouldBe(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      for (String taskId : List.of("full-1", "full-2")) {
        create(runtime, inGroup(taskId, "full"), T0_MS - 500, T0_MS + 60_000);
      }
      create(runtime, inGroup("mover", "roomy"), T0_MS - 500, T0_MS + 60_000);
      TaskUpdateStore store = new TaskUpdateStore(runtime.dataSource(), new FireTimes(), 2);

      TaskLifecycleStore.Result moved =
          store.update(request("u-1", "mover", T0_MS), inGroup("mover", "full"));
      assertThat(moved)
          .isInstanceOfSatisfying(
              TaskLifecycleStore.Result.Refused.class,
              r ->
                  assertThat(r.reason())
                      .contains("group 'full', which has 2", "AX_MAX_ACTIVE_TASKS_PER_GROUP"));
      assertThat(new TaskStore(runtime.dataSource()).find("mover").orElseThrow().spec().group())
          .isEqualTo("roomy");
      // Within its own group a task is counted already: a new spec there is no new task.
      applied(store.update(request("u-2", "full-1", T0_MS), inGroup("full-1", "full")));
      // Out of the full group, into one with room: fine, and the room it left is taken again.
      applied(store.update(request("u-3", "full-2", T0_MS), inGroup("full-2", "roomy")));
      applied(store.update(request("u-4", "mover", T0_MS), inGroup("mover", "full")));
    }
  }

  private static TaskSpec inGroup(String taskId, String group) {
    return TestTasks.spec(
        taskId,
        group,
        cron("0 0 * * * ?"),
        dev.ax.common.model.ExecutorSpec.inProcess("noop"),
        Duration.ofSeconds(5),
        dev.ax.common.model.RetryPolicy.DEFAULT,
        Map.of());
  }

  private static TaskSpec spec(String taskId, String expression) {
    return TestTasks.noop(taskId, cron(expression));
  }

  private static void create(TestRuntime runtime, TaskSpec spec, long acceptedAtMs, long firstDueMs)
      throws Exception {
    new TaskStore(runtime.dataSource())
        .create(List.of(new NewTask(spec, "trace", firstDueMs)), "test", acceptedAtMs);
  }

  /** The instance fired at {@code firedAtMs} and is RUNNING. */
  private static void running(TestRuntime runtime, String instanceId, long firedAtMs)
      throws Exception {
    RawSql.execute(
        runtime.dataSource(),
        "UPDATE ax_instance SET status = 'RUNNING', dispatched_at_ms = "
            + firedAtMs
            + " WHERE instance_id = '"
            + instanceId
            + "'");
  }

  /** The instance fired at {@code firedAtMs} and succeeded at {@code endedAtMs}. */
  private static void ran(TestRuntime runtime, String instanceId, long firedAtMs, long endedAtMs)
      throws Exception {
    running(runtime, instanceId, firedAtMs);
    RawSql.execute(
        runtime.dataSource(),
        "UPDATE ax_instance SET status = 'SUCCESS', finished_at_ms = "
            + endedAtMs
            + " WHERE instance_id = '"
            + instanceId
            + "'");
  }

  private static TaskLifecycleStore.Request request(String commandId, String taskId, long nowMs) {
    return new TaskLifecycleStore.Request(
        commandId, taskId, null, null, "trace", "test", nowMs, false);
  }

  private static void applied(TaskLifecycleStore.Result result) {
    assertThat(result).isInstanceOf(TaskLifecycleStore.Result.Applied.class);
  }

  private static Map<String, InstanceStatus> pending(TestRuntime runtime, String taskId) {
    return new InstanceStore(runtime.dataSource())
        .findByTask(taskId).stream()
            .filter(
                r -> r.status() == InstanceStatus.SCHEDULED || r.status() == InstanceStatus.PAUSED)
            .collect(Collectors.toMap(InstanceRow::instanceId, InstanceRow::status));
  }
}
