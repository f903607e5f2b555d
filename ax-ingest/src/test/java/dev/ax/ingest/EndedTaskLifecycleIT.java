package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.TaskState;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.NewTask;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The lifecycle commands on an ENDED one-shot task (one whose run is over): PAUSE and RESUME are
 * refused with the reason, CANCEL and DELETE apply as to a finished task, RUN_NOW and an UPDATE
 * that gives it a run make it ACTIVE again, an UPDATE that gives it none leaves it ENDED; a group
 * PAUSE pages over ACTIVE tasks only. And a RESUME of a paused one-shot task whose run ended
 * meanwhile ends it.
 */
@ExtendWith(AxInfraExtension.class)
class EndedTaskLifecycleIT {

  private static final long T0_MS = 1_900_000_020_000L;

  @Test
  void commandsOnAnEndedTaskAreRefusedOrAppliedAsForAFinishedRun(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      List<String> ids = List.of("e-pause", "e-delete", "e-cancel", "e-run", "e-cron", "e-again");
      for (String id : ids) {
        new TaskStore(runtime.dataSource())
            .create(List.of(new NewTask(once(id), "trace", T0_MS)), "test", T0_MS - 10);
      }
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_instance SET status = 'SUCCESS', finished_at_ms = " + (T0_MS + 5));
      RawSql.execute(runtime.dataSource(), "UPDATE ax_task SET state = 'ENDED'");
      TaskLifecycleStore lifecycle = new TaskLifecycleStore(runtime.dataSource());
      TaskUpdateStore updates = new TaskUpdateStore(runtime.dataSource(), new FireTimes());
      TaskStore tasks = new TaskStore(runtime.dataSource());

      assertThat(
              new GroupLifecycleStore(runtime.dataSource())
                  .page(TaskLifecycleStore.Transition.PAUSE, "default", "", 100))
          .as("a group PAUSE pages over ACTIVE tasks only")
          .isEmpty();
      assertThat(lifecycle.apply(TaskLifecycleStore.Transition.PAUSE, request("p", "e-pause")))
          .isEqualTo(
              new TaskLifecycleStore.Result.Refused(
                  "PAUSE of task e-pause, which is ENDED (its one-shot run is over)"));
      assertThat(lifecycle.apply(TaskLifecycleStore.Transition.RESUME, request("r", "e-pause")))
          .isEqualTo(
              new TaskLifecycleStore.Result.Refused(
                  "RESUME of task e-pause, which is ENDED (its one-shot run is over)"));
      assertThat(tasks.find("e-pause").get().state()).isEqualTo(TaskState.ENDED);

      applied(lifecycle.apply(TaskLifecycleStore.Transition.DELETE, request("d", "e-delete")));
      applied(lifecycle.apply(TaskLifecycleStore.Transition.CANCEL, request("c", "e-cancel")));
      assertThat(tasks.find("e-delete").get().state()).isEqualTo(TaskState.DELETED);
      assertThat(tasks.find("e-cancel").get().state()).isEqualTo(TaskState.CANCELLED);

      applied(lifecycle.apply(TaskLifecycleStore.Transition.RUN_NOW, request("now", "e-run")));
      assertThat(tasks.find("e-run").get().state()).isEqualTo(TaskState.ACTIVE);
      assertThat(status(runtime, InstanceIds.inFlow("e-run", "run:now")))
          .isEqualTo(InstanceStatus.SCHEDULED);

      TaskSpec hourly = TestTasks.noop("e-cron", new Trigger.Cron("0 0 * * * ?", ZoneOffset.UTC));
      applied(updates.update(request("u", "e-cron"), hourly));
      assertThat(tasks.find("e-cron").get().state()).as("now periodic").isEqualTo(TaskState.ACTIVE);
      applied(updates.update(request("u", "e-again"), once("e-again")));
      assertThat(tasks.find("e-again").get().state())
          .as("a ONCE task that fired gets no run from an UPDATE")
          .isEqualTo(TaskState.ENDED);
      assertThat(tasks.find("e-again").get().version()).isEqualTo(2);
    }
  }

  @Test
  void aResumeOfAPausedOneShotTaskWhoseRunEndedMeanwhileEndsIt(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      new TaskStore(runtime.dataSource())
          .create(List.of(new NewTask(once("held"), "trace", T0_MS)), "test", T0_MS - 10);
      String instanceId = InstanceIds.of("held", T0_MS);
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_instance SET status = 'RUNNING' WHERE instance_id = '" + instanceId + "'");
      TaskLifecycleStore lifecycle = new TaskLifecycleStore(runtime.dataSource());
      applied(lifecycle.apply(TaskLifecycleStore.Transition.PAUSE, request("p", "held")));
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_instance SET status = 'SUCCESS' WHERE instance_id = '" + instanceId + "'");
      TaskStore tasks = new TaskStore(runtime.dataSource());
      assertThat(tasks.find("held").get().state()).isEqualTo(TaskState.PAUSED);
      assertThat(tasks.countActiveByGroup(List.of("default"))).containsEntry("default", 1L);

      applied(lifecycle.apply(TaskLifecycleStore.Transition.RESUME, request("r", "held")));

      assertThat(tasks.find("held").get().state()).isEqualTo(TaskState.ENDED);
      assertThat(tasks.countActiveByGroup(List.of("default"))).isEmpty();
    }
  }

  /**
   * A periodic task made ONCE by an UPDATE while a run of its old trigger is under way: that run is
   * one-shot now too, so whichever of the two ends last ends the task, and the first does not.
   */
  @Test
  void aTaskMadeOneShotEndsWhenTheRunOfItsOldTriggerEndsLast(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      TaskSpec hourly =
          TestTasks.noop("made-once", new Trigger.Cron("0 0 * * * ?", ZoneOffset.UTC));
      new TaskStore(runtime.dataSource())
          .create(List.of(new NewTask(hourly, "trace", T0_MS)), "test", T0_MS - 10);
      String oldRun = InstanceIds.of("made-once", T0_MS);
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_instance SET status = 'RUNNING', attempt = 1, owner = 'd'"
              + " WHERE instance_id = '"
              + oldRun
              + "'");
      long onceAtMs = T0_MS + 60_000;
      applied(
          new TaskUpdateStore(runtime.dataSource(), new FireTimes())
              .update(
                  request("u", "made-once"),
                  TestTasks.noop("made-once", Trigger.Once.at(Instant.ofEpochMilli(onceAtMs)))));
      Jdbc jdbc = new Jdbc(runtime.dataSource());
      TaskStore tasks = new TaskStore(runtime.dataSource());

      jdbc.move(
          "instance_id",
          List.of(InstanceIds.of("made-once", onceAtMs)),
          BatchMove.from(InstanceStatus.SCHEDULED)
              .<String>to(InstanceStatus.SKIPPED)
              .set("finished_at_ms = ?", T0_MS + 200)
              .readBack("instance_id", rs -> rs.getString(1))
              .audit("test", "misfire"),
          T0_MS + 200);
      assertThat(tasks.find("made-once").get().state())
          .as("the old trigger's run is still live")
          .isEqualTo(TaskState.ACTIVE);

      jdbc.move(
          "instance_id",
          List.of(oldRun),
          BatchMove.from(InstanceStatus.RUNNING)
              .<String>to(InstanceStatus.SUCCESS)
              .set("finished_at_ms = ?", T0_MS + 300)
              .readBack("instance_id", rs -> rs.getString(1))
              .audit("d", "completed"),
          T0_MS + 300);
      assertThat(tasks.find("made-once").get().state()).isEqualTo(TaskState.ENDED);
    }
  }

  private static TaskSpec once(String taskId) {
    return TestTasks.noop(taskId, Trigger.Once.after(Duration.ofMillis(5)));
  }

  private static TaskLifecycleStore.Request request(String commandId, String taskId) {
    return new TaskLifecycleStore.Request(
        commandId, taskId, null, null, "trace", "test", T0_MS + 100, false);
  }

  private static void applied(TaskLifecycleStore.Result result) {
    assertThat(result).isInstanceOf(TaskLifecycleStore.Result.Applied.class);
  }

  private static InstanceStatus status(TestRuntime runtime, String instanceId) {
    return new InstanceStore(runtime.dataSource())
        .find(instanceId)
        .map(InstanceRow::status)
        .orElseThrow();
  }
}
