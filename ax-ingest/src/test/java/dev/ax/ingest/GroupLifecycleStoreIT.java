package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.DueInstance;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ingest.GroupLifecycleStore.GroupTask;
import dev.ax.ingest.GroupLifecycleStore.PageResult;
import dev.ax.ingest.GroupLifecycleStore.Resumed;
import dev.ax.ingest.TaskLifecycleStore.Request;
import dev.ax.ingest.TaskLifecycleStore.Result;
import dev.ax.ingest.TaskLifecycleStore.Transition;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link GroupLifecycleStore} on the real database, called directly: a group's PAUSE or RESUME
 * pages over the group's tasks in the one state it applies to, applies to each as the command
 * naming it would and to no task of another group, and a redelivery changes none of the tasks it
 * changed (README, "PAUSE or RESUME of a whole group"). One database for the class: each case has
 * groups of its own.
 */
@ExtendWith(AxInfraExtension.class)
class GroupLifecycleStoreIT {

  /** A whole hour (UTC), in the future. */
  private static final long T0_MS = 1_900_000_800_000L;

  private static final long NOW_MS = T0_MS - 60_000;

  private static TestRuntime runtime;
  private static LifecycleRows rows;
  private static GroupLifecycleStore groups;
  private static TaskLifecycleStore tasks;

  @BeforeAll
  static void openDatabase(AxTestEnv env) {
    runtime = TestRuntime.open(env);
    rows = new LifecycleRows(runtime.dataSource());
    groups = new GroupLifecycleStore(runtime.dataSource());
    tasks = new TaskLifecycleStore(runtime.dataSource());
  }

  @AfterAll
  static void closeDatabase() {
    runtime.close();
  }

  /** PAUSE pages over ACTIVE tasks, RESUME over PAUSED ones, by task id, after the cursor. */
  @Test
  void aPageHoldsTheGroupsTasksInTheStateTheCommandAppliesTo() {
    String group = "g-page";
    for (String taskId : List.of("a3", "a1", "a2")) {
      task(group, "g-page-" + taskId, "ACTIVE");
    }
    task(group, "g-page-p1", "PAUSED");
    task(group, "g-page-c1", "CANCELLED");
    task(group, "g-page-d1", "DELETED");
    task(group, "g-page-e1", "ENDED");
    task("g-page-other", "g-page-o1", "ACTIVE");

    assertThat(ids(groups.page(Transition.PAUSE, group, "", 100)))
        .containsExactly("g-page-a1", "g-page-a2", "g-page-a3");
    assertThat(ids(groups.page(Transition.PAUSE, group, "", 2)))
        .containsExactly("g-page-a1", "g-page-a2");
    assertThat(ids(groups.page(Transition.PAUSE, group, "g-page-a2", 2)))
        .containsExactly("g-page-a3");
    assertThat(groups.page(Transition.RESUME, group, "", 100))
        .containsExactly(
            new GroupTask(
                "g-page-p1",
                rows.one("SELECT trigger_group FROM ax_task WHERE task_id = 'g-page-p1'")));
    assertThatThrownBy(() -> groups.page(Transition.CANCEL, group, "", 100))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * A group PAUSE pauses each ACTIVE task of the group and holds its firing, with the group named
   * in the audit row and the command recorded per task; a task of another group is left alone. The
   * page again counts duplicates. A group RESUME resumes them and hands back their firings to
   * announce.
   */
  @Test
  void pauseAndResumeApplyToTheGroupsTasksOnly() {
    String group = "g-pause";
    List<String> members = List.of("g-pause-1", "g-pause-2", "g-pause-3");
    members.forEach(taskId -> task(group, taskId, "ACTIVE"));
    task("g-pause-other", "g-pause-o", "ACTIVE");
    List<GroupTask> page = groups.page(Transition.PAUSE, group, "", 100);

    assertThat(groups.apply(Transition.PAUSE, request("op-7", group), page))
        .isEqualTo(new PageResult(3, 0, 0, 3, List.of(), 0));

    for (String taskId : members) {
      assertThat(rows.taskState(taskId)).isEqualTo("PAUSED");
      assertThat(rows.statuses(taskId)).containsOnly(entry(slot(taskId), "PAUSED"));
      assertThat(rows.moves(slot(taskId)))
          .containsExactly("SCHEDULED>PAUSED: paused by command op-7 for group g-pause: because");
      assertThat(rows.recorded(taskId, "op-7")).containsExactly("PAUSE");
    }
    assertThat(rows.taskState("g-pause-o")).isEqualTo("ACTIVE");
    assertThat(rows.statuses("g-pause-o").values()).containsExactly("SCHEDULED");
    assertThat(groups.apply(Transition.PAUSE, request("op-7", group), page))
        .as("the same page again")
        .isEqualTo(new PageResult(0, 3, 0, 0, List.of(), 0));
    assertThat(groups.page(Transition.PAUSE, group, "", 100)).isEmpty();

    List<GroupTask> paused = groups.page(Transition.RESUME, group, "", 100);
    PageResult resumed = groups.apply(Transition.RESUME, request("op-8", group), paused);

    assertThat(resumed.applied()).isEqualTo(3);
    assertThat(resumed.resumed()).extracting(Resumed::task).isEqualTo(paused);
    assertThat(resumed.resumed())
        .flatExtracting(Resumed::instances)
        .extracting(DueInstance::instanceId)
        .containsExactlyElementsOf(members.stream().map(GroupLifecycleStoreIT::slot).toList());
    members.forEach(taskId -> assertThat(rows.taskState(taskId)).isEqualTo("ACTIVE"));
    assertThat(rows.recorded("g-pause-o", "op-8")).isEmpty();
  }

  /**
   * A redelivered group PAUSE changes none of the tasks it changed, even one resumed since on its
   * own; a task it did not change that became ACTIVE since (resumed on its own, or new in the
   * group) is paused by it.
   */
  @Test
  void aRedeliveredGroupPauseChangesNoTaskItChanged() {
    String group = "g-again";
    task(group, "g-again-1", "ACTIVE");
    task(group, "g-again-2", "ACTIVE");
    task(group, "g-again-4", "PAUSED");
    groups.apply(
        Transition.PAUSE, request("op-7", group), groups.page(Transition.PAUSE, group, "", 100));
    assertThat(tasks.apply(Transition.RESUME, taskRequest("r-1", "g-again-1")))
        .isInstanceOf(Result.Applied.class);
    task(group, "g-again-3", "ACTIVE");
    assertThat(tasks.apply(Transition.RESUME, taskRequest("r-4", "g-again-4")))
        .isInstanceOf(Result.Applied.class);

    List<GroupTask> page = groups.page(Transition.PAUSE, group, "", 100);
    assertThat(ids(page)).containsExactly("g-again-1", "g-again-3", "g-again-4");
    assertThat(groups.apply(Transition.PAUSE, request("op-7", group), page))
        .isEqualTo(new PageResult(2, 1, 0, 2, List.of(), 0));

    assertThat(rows.taskState("g-again-1")).isEqualTo("ACTIVE");
    assertThat(rows.taskState("g-again-2")).isEqualTo("PAUSED");
    assertThat(rows.taskState("g-again-3")).isEqualTo("PAUSED");
    assertThat(rows.taskState("g-again-4")).isEqualTo("PAUSED");
  }

  /**
   * An UPDATE that moves a task out of a group takes it out of the group's later commands; one that
   * moves a task in after a group PAUSE leaves it ACTIVE until the group is paused again.
   */
  @Test
  void anUpdateMovesATaskBetweenGroups() {
    task("g-from", "g-move-out", "ACTIVE");
    task("g-from", "g-from-1", "ACTIVE");
    task("g-to", "g-to-1", "ACTIVE");
    task("g-elsewhere", "g-move-in", "ACTIVE");
    groups.apply(
        Transition.PAUSE, request("op-1", "g-to"), groups.page(Transition.PAUSE, "g-to", "", 100));
    TaskUpdateStore updates = new TaskUpdateStore(runtime.dataSource(), new FireTimes());
    assertThat(updates.update(taskRequest("u-1", "g-move-out"), hourly("g-move-out", "g-to")))
        .isInstanceOf(Result.Applied.class);
    assertThat(updates.update(taskRequest("u-2", "g-move-in"), hourly("g-move-in", "g-to")))
        .isInstanceOf(Result.Applied.class);

    assertThat(ids(groups.page(Transition.PAUSE, "g-from", "", 100))).containsExactly("g-from-1");
    assertThat(rows.taskState("g-move-in"))
        .as("not paused by the earlier group PAUSE")
        .isEqualTo("ACTIVE");
    assertThat(ids(groups.page(Transition.PAUSE, "g-to", "", 100)))
        .containsExactly("g-move-in", "g-move-out");
  }

  /** A task that changed between the page's read and its transaction is refused, left as is. */
  @Test
  void aTaskThatChangedSinceThePageWasReadIsRefused() {
    String group = "g-race";
    task(group, "g-race-1", "ACTIVE");
    task(group, "g-race-2", "ACTIVE");
    List<GroupTask> page = groups.page(Transition.PAUSE, group, "", 100);
    assertThat(tasks.apply(Transition.CANCEL, taskRequest("c-1", "g-race-2")))
        .isInstanceOf(Result.Applied.class);

    assertThat(groups.apply(Transition.PAUSE, request("op-7", group), page))
        .isEqualTo(new PageResult(1, 0, 1, 1, List.of(), 0));

    assertThat(rows.taskState("g-race-1")).isEqualTo("PAUSED");
    assertThat(rows.taskState("g-race-2")).isEqualTo("CANCELLED");
    assertThat(rows.recorded("g-race-2", "op-7")).isEmpty();
  }

  /** A group has tasks while one of them is not DELETED (an ENDED or CANCELLED one counts). */
  @Test
  void aGroupHasTasksWhileOneIsNotDeleted() {
    task("g-deleted", "g-deleted-1", "DELETED");
    task("g-ended", "g-ended-1", "ENDED");
    task("g-cancelled", "g-cancelled-1", "CANCELLED");

    assertThat(groups.hasTasks("g-deleted")).isFalse();
    assertThat(groups.hasTasks("g-no-such-group")).isFalse();
    assertThat(groups.hasTasks("g-ended")).isTrue();
    assertThat(groups.hasTasks("g-cancelled")).isTrue();
  }

  /** A new hourly task in {@code group}, put in {@code state}, its slot held as the state says. */
  private static void task(String group, String taskId, String state) {
    rows.create(
        TestTasks.noop(taskId, new Trigger.Cron("0 0 * * * ?", ZoneOffset.UTC)), T0_MS, NOW_MS);
    rows.execute("UPDATE ax_task SET task_group = ? WHERE task_id = ?", group, taskId);
    if (!state.equals("ACTIVE")) {
      String slotStatus =
          switch (state) {
            case "PAUSED" -> "PAUSED";
            case "ENDED" -> "SUCCESS";
            default -> "CANCELLED";
          };
      rows.setStatus(slot(taskId), slotStatus, 0);
      rows.setTaskState(taskId, state);
    }
  }

  /** The hourly spec of {@link #task}, in {@code group}. */
  private static TaskSpec hourly(String taskId, String group) {
    TaskSpec spec = TestTasks.noop(taskId, new Trigger.Cron("0 0 * * * ?", ZoneOffset.UTC));
    return new TaskSpec(
        taskId,
        group,
        spec.trigger(),
        spec.executor(),
        spec.timeout(),
        spec.retry(),
        spec.params(),
        spec.misfirePolicy(),
        spec.maxFireAll(),
        spec.concurrent(),
        spec.concurrencyPolicy());
  }

  private static String slot(String taskId) {
    return InstanceIds.of(taskId, T0_MS);
  }

  private static List<String> ids(List<GroupTask> page) {
    return page.stream().map(GroupTask::taskId).toList();
  }

  private static Request request(String commandId, String group) {
    return new Request(commandId, null, group, "because", "trace", "test", NOW_MS, false);
  }

  private static Request taskRequest(String commandId, String taskId) {
    return new Request(commandId, taskId, null, "because", "trace", "test", NOW_MS, false);
  }
}
