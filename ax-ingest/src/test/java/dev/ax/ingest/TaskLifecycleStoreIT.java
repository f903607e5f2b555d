package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.groups.Tuple.tuple;

import dev.ax.common.model.ConcurrencyPolicy;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.NewInstance;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ingest.TaskLifecycleStore.Request;
import dev.ax.ingest.TaskLifecycleStore.Result;
import dev.ax.ingest.TaskLifecycleStore.Transition;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link TaskLifecycleStore} on the real database, its public methods called directly: every
 * command in every task state (applied to which state, or refused with which reason, and a replay
 * of the same command changing nothing), and what each command does to the task's instances by
 * status (README, "Updating, cancelling, deleting, pausing, resuming and running a task now";
 * docs/ARCHITECTURE.md, "A task's life"). One database for the class: each case has tasks of its
 * own.
 */
@ExtendWith(AxInfraExtension.class)
class TaskLifecycleStoreIT {

  /** A whole hour (UTC), in the future. */
  private static final long T0_MS = 1_900_000_800_000L;

  private static final long HOUR_MS = 3_600_000L;
  private static final long NOW_MS = T0_MS - 60_000;

  private static TestRuntime runtime;
  private static LifecycleRows rows;
  private static TaskLifecycleStore store;

  @BeforeAll
  static void openDatabase(AxTestEnv env) {
    runtime = TestRuntime.open(env);
    rows = new LifecycleRows(runtime.dataSource());
    store = new TaskLifecycleStore(runtime.dataSource());
  }

  @AfterAll
  static void closeDatabase() {
    runtime.close();
  }

  /**
   * One command on a task in one state. The task is hourly (ENDED: a ONCE task whose run succeeded)
   * with one slot instance, in the status its state leaves it. {@code outcome} is {@code -> STATE}
   * for an applied command, else the refusal's reason ({@code {id}}: the task).
   */
  @ParameterizedTest(name = "{1} of a {0} task: {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          ACTIVE    | PAUSE   | -> PAUSED                                                    | PAUSED
          ACTIVE    | RESUME  | task {id} is not paused                                      | SCHEDULED
          ACTIVE    | CANCEL  | -> CANCELLED                                                 | CANCELLED
          ACTIVE    | DELETE  | -> DELETED                                                   | CANCELLED
          ACTIVE    | RUN_NOW | -> ACTIVE                                                    | SCHEDULED
          PAUSED    | PAUSE   | task {id} is paused already                                  | PAUSED
          PAUSED    | RESUME  | -> ACTIVE                                                    | SCHEDULED
          PAUSED    | CANCEL  | -> CANCELLED                                                 | CANCELLED
          PAUSED    | DELETE  | -> DELETED                                                   | CANCELLED
          PAUSED    | RUN_NOW | RUN_NOW of task {id}, which is PAUSED (resume it first)      | PAUSED
          CANCELLED | PAUSE   | PAUSE of task {id}, which is CANCELLED                       | CANCELLED
          CANCELLED | RESUME  | RESUME of task {id}, which is CANCELLED                      | CANCELLED
          CANCELLED | CANCEL  | task {id} is cancelled already                               | CANCELLED
          CANCELLED | DELETE  | -> DELETED                                                   | CANCELLED
          CANCELLED | RUN_NOW | RUN_NOW of task {id}, which is CANCELLED                     | CANCELLED
          DELETED   | PAUSE   | PAUSE of task {id}, which is DELETED                         | CANCELLED
          DELETED   | RESUME  | RESUME of task {id}, which is DELETED                        | CANCELLED
          DELETED   | CANCEL  | CANCEL of task {id}, which is DELETED                        | CANCELLED
          DELETED   | DELETE  | task {id} is deleted already                                 | CANCELLED
          DELETED   | RUN_NOW | RUN_NOW of task {id}, which is DELETED                       | CANCELLED
          ENDED     | PAUSE   | PAUSE of task {id}, which is ENDED (its one-shot run is over)  | SUCCESS
          ENDED     | RESUME  | RESUME of task {id}, which is ENDED (its one-shot run is over) | SUCCESS
          ENDED     | CANCEL  | -> CANCELLED                                                 | SUCCESS
          ENDED     | DELETE  | -> DELETED                                                   | SUCCESS
          ENDED     | RUN_NOW | -> ACTIVE                                                    | SUCCESS
          """)
  void eachCommandInEachTaskState(
      String state, String command, String outcome, String slotStatusAfter) {
    String taskId = "s-" + state.toLowerCase() + "-" + command.toLowerCase();
    String slot = taskIn(taskId, state);
    Transition transition = transition(command);
    String commandId = "cmd-" + taskId;
    int instancesBefore = rows.statuses(taskId).size();

    Result result = store.apply(transition, request(commandId, taskId, false));

    if (outcome.startsWith("-> ")) {
      assertThat(result).isInstanceOf(Result.Applied.class);
      assertThat(rows.taskState(taskId)).isEqualTo(outcome.substring(3));
      assertThat(rows.recorded(taskId, commandId)).containsExactly(command);
    } else {
      assertThat(result).isEqualTo(new Result.Refused(outcome.replace("{id}", taskId)));
      assertThat(rows.taskState(taskId)).as("unchanged").isEqualTo(state);
      assertThat(rows.recorded(taskId, commandId)).as("nothing recorded").isEmpty();
    }
    assertThat(rows.statuses(taskId)).containsEntry(slot, slotStatusAfter);
    String runNow = InstanceIds.inFlow(taskId, "run:" + commandId);
    if (result instanceof Result.Applied && transition == Transition.RUN_NOW) {
      assertThat(rows.statuses(taskId)).containsEntry(runNow, "SCHEDULED");
    } else {
      assertThat(rows.statuses(taskId)).hasSize(instancesBefore);
    }

    Map<String, String> after = rows.statuses(taskId);
    String stateAfter = rows.taskState(taskId);
    Result replay = store.apply(transition, request(commandId, taskId, false));
    assertThat(replay)
        .as("the same command again")
        .isEqualTo(result instanceof Result.Applied ? new Result.Duplicate() : result);
    assertThat(rows.statuses(taskId)).isEqualTo(after);
    assertThat(rows.taskState(taskId)).isEqualTo(stateAfter);
  }

  @ParameterizedTest
  @ValueSource(strings = {"PAUSE", "RESUME", "CANCEL", "DELETE", "RUN_NOW"})
  void aCommandForAnUnknownTaskIsRefused(String command) {
    assertThat(store.apply(transition(command), request("c-unknown", "no-such-task", false)))
        .isEqualTo(new Result.Refused(command + " for unknown task no-such-task"));
    assertThat(rows.statuses("no-such-task")).isEmpty();
  }

  /**
   * CANCEL and DELETE cancel every pending instance (SCHEDULED, DISPATCHED, RETRYING, PAUSED) with
   * an audit row and the reason as its last error; a RUNNING attempt finishes, a finished one stays
   * as it is. With {@code interrupt} the RUNNING one is CANCELLED too.
   */
  @ParameterizedTest(name = "{0}, interrupt {1}")
  @CsvSource({"CANCEL,false", "CANCEL,true", "DELETE,false", "DELETE,true"})
  void cancelAndDeleteStopEveryPendingInstance(String command, boolean interrupt) {
    String taskId = "stop-" + command.toLowerCase() + "-" + interrupt;
    Map<String, String> ids = instancesInEveryStatus(taskId);
    Transition transition = transition(command);

    Result result = store.apply(transition, request("c-1", taskId, interrupt));

    String verb = transition.verb();
    assertThat(result).isEqualTo(new Result.Applied(interrupt ? 5 : 4, List.of()));
    assertThat(rows.statuses(taskId))
        .containsOnly(
            entry(ids.get("SCHEDULED"), "CANCELLED"),
            entry(ids.get("DISPATCHED"), "CANCELLED"),
            entry(ids.get("RETRYING"), "CANCELLED"),
            entry(ids.get("PAUSED"), "CANCELLED"),
            entry(ids.get("RUNNING"), interrupt ? "CANCELLED" : "RUNNING"),
            entry(ids.get("SUCCESS"), "SUCCESS"));
    String reason = verb + " by command c-1: because";
    assertThat(rows.moves(ids.get("RETRYING"))).containsExactly("RETRYING>CANCELLED: " + reason);
    assertThat(
            rows.one(
                "SELECT last_error FROM ax_instance WHERE instance_id = ?", ids.get("SCHEDULED")))
        .isEqualTo(reason);
    assertThat(rows.moves(ids.get("RUNNING")))
        .isEqualTo(
            interrupt
                ? List.of("RUNNING>CANCELLED: " + reason + "; its running attempt is interrupted")
                : List.of());
    assertThat(rows.moves(ids.get("SUCCESS"))).isEmpty();

    assertThat(store.apply(transition, request("c-1", taskId, interrupt)))
        .isEqualTo(new Result.Duplicate());
    assertThat(rows.moves(ids.get("RETRYING"))).as("no second audit row").hasSize(1);
  }

  /**
   * A CANCEL (DELETE) with interrupt also applies to a task cancelled (deleted) already: it cancels
   * the attempt the first command let run, and nothing else.
   */
  @ParameterizedTest
  @ValueSource(strings = {"CANCEL", "DELETE"})
  void anInterruptReachesWhatAnEarlierCommandLetRun(String command) {
    String taskId = "late-interrupt-" + command.toLowerCase();
    Map<String, String> ids = instancesInEveryStatus(taskId);
    Transition transition = transition(command);
    assertThat(store.apply(transition, request("c-1", taskId, false)))
        .isInstanceOf(Result.Applied.class);
    assertThat(rows.statuses(taskId)).containsEntry(ids.get("RUNNING"), "RUNNING");

    assertThat(store.apply(transition, request("c-2", taskId, true)))
        .isEqualTo(new Result.Applied(1, List.of()));

    assertThat(rows.statuses(taskId)).containsEntry(ids.get("RUNNING"), "CANCELLED");
    assertThat(rows.taskState(taskId))
        .isEqualTo(command.equals("CANCEL") ? "CANCELLED" : "DELETED");
  }

  /**
   * PAUSE holds what has not started (SCHEDULED, unclaimed DISPATCHED: PAUSED, no owner); RUNNING
   * and RETRYING are left. RESUME makes the held firing SCHEDULED again, due when it was, and
   * announces it. Of two held firings of a periodic task the later here is the chain's next firing,
   * still ahead (a minute after the RESUME): it resumes too, whatever the policy, since the earlier
   * one's catch-up plans it as its successor under the same id (skipping it ended the chain;
   * ResumeHeldFiringsIT has the case of two held firings both due, where the earlier stands for
   * both).
   */
  @ParameterizedTest
  @ValueSource(strings = {"FIRE_ONCE_NOW", "SKIP", "FIRE_ALL"})
  void pauseHoldsWhatHasNotStartedAndResumeReleasesIt(String misfire) {
    String taskId = "hold-" + misfire.toLowerCase();
    String fired = InstanceIds.of(taskId, T0_MS - HOUR_MS);
    String next = rows.create(hourly(taskId, MisfirePolicy.valueOf(misfire)), T0_MS, NOW_MS);
    rows.addInstance(fired, taskId, T0_MS - HOUR_MS, "DISPATCHED", 0);
    String running = InstanceIds.of(taskId, T0_MS - 2 * HOUR_MS);
    rows.addInstance(running, taskId, T0_MS - 2 * HOUR_MS, "RUNNING", 0);
    String retrying = InstanceIds.of(taskId, T0_MS - 3 * HOUR_MS);
    rows.addInstance(retrying, taskId, T0_MS - 3 * HOUR_MS, "RETRYING", 1);

    assertThat(store.apply(Transition.PAUSE, request("p", taskId, false)))
        .isEqualTo(new Result.Applied(2, List.of()));
    assertThat(rows.statuses(taskId))
        .containsOnly(
            entry(fired, "PAUSED"),
            entry(next, "PAUSED"),
            entry(running, "RUNNING"),
            entry(retrying, "RETRYING"));
    assertThat(
            rows.one(
                "SELECT COUNT(*) FROM ax_instance WHERE task_id = ? AND status = 'PAUSED'"
                    + " AND owner IS NULL",
                taskId))
        .isEqualTo("2");
    assertThat(rows.moves(fired))
        .containsExactly("DISPATCHED>PAUSED: paused by command p: because");

    Result resumed = store.apply(Transition.RESUME, request("r", taskId, false));

    assertThat(resumed).isInstanceOf(Result.Applied.class);
    assertThat(((Result.Applied) resumed).toAnnounce())
        .extracting(DueInstance::instanceId)
        .containsExactlyInAnyOrder(fired, next);
    assertThat(((Result.Applied) resumed).toAnnounce())
        .filteredOn(due -> due.instanceId().equals(fired))
        .extracting(DueInstance::dueAtMs)
        .as("due when it was")
        .containsExactly(T0_MS - HOUR_MS);
    assertThat(rows.statuses(taskId))
        .containsOnly(
            entry(fired, "SCHEDULED"),
            entry(next, "SCHEDULED"),
            entry(running, "RUNNING"),
            entry(retrying, "RETRYING"));
    assertThat(rows.taskState(taskId)).isEqualTo("ACTIVE");
  }

  /**
   * A held retry (an attempt already made) and RUN_NOW's held instance stand for no slot: each
   * resumes as itself, and the earliest held firing resumes beside them.
   */
  @Test
  void heldRunsResumeAsThemselves() {
    String taskId = "hold-runs";
    String slot = rows.create(hourly(taskId, MisfirePolicy.FIRE_ONCE_NOW), T0_MS, NOW_MS);
    String heldRetry = InstanceIds.of(taskId, T0_MS - HOUR_MS);
    rows.addInstance(heldRetry, taskId, T0_MS - HOUR_MS, "PAUSED", 1);
    String heldRunNow = InstanceIds.inFlow(taskId, "run:op-1");
    rows.addInstance(heldRunNow, taskId, T0_MS - 10, "PAUSED", 0);
    rows.setStatus(slot, "PAUSED", 0);
    rows.setTaskState(taskId, "PAUSED");

    Result resumed = store.apply(Transition.RESUME, request("r", taskId, false));

    assertThat(((Result.Applied) resumed).toAnnounce())
        .extracting(DueInstance::instanceId)
        .containsExactlyInAnyOrder(heldRetry, heldRunNow, slot);
    assertThat(rows.statuses(taskId).values()).containsOnly("SCHEDULED");
  }

  /**
   * RUN_NOW adds one instance due now ({@code taskId@run:<commandId>}), announced, and leaves the
   * schedule's next firing as it is; the same command again makes none, another command another.
   */
  @Test
  void runNowAddsOneInstancePerCommand() {
    String taskId = "run-now";
    String slot = rows.create(hourly(taskId, MisfirePolicy.FIRE_ONCE_NOW), T0_MS, NOW_MS);

    Result first = store.apply(Transition.RUN_NOW, request("op-1", taskId, false));

    String extra = InstanceIds.inFlow(taskId, "run:op-1");
    assertThat(first).isInstanceOf(Result.Applied.class);
    assertThat(((Result.Applied) first).toAnnounce())
        .extracting(DueInstance::instanceId, DueInstance::dueAtMs)
        .containsExactly(tuple(extra, NOW_MS));
    assertThat(store.apply(Transition.RUN_NOW, request("op-1", taskId, false)))
        .isEqualTo(new Result.Duplicate());
    assertThat(store.apply(Transition.RUN_NOW, request("op-2", taskId, false)))
        .isInstanceOf(Result.Applied.class);
    assertThat(rows.statuses(taskId))
        .containsOnly(
            entry(slot, "SCHEDULED"),
            entry(extra, "SCHEDULED"),
            entry(InstanceIds.inFlow(taskId, "run:op-2"), "SCHEDULED"));
    assertThat(rows.one("SELECT due_at_ms FROM ax_instance WHERE instance_id = ?", slot))
        .isEqualTo(Long.toString(T0_MS));
  }

  /**
   * A RESUME of a paused one-shot task: ACTIVE while its run is held or still running, ENDED when
   * the run ended while it was paused.
   */
  @ParameterizedTest(name = "run {0} while paused: {1}")
  @CsvSource({"PAUSED, ACTIVE", "RUNNING, ACTIVE", "SUCCESS, ENDED"})
  void aResumedOneShotTaskEndsOnlyWhenItsRunEnded(String runStatus, String stateAfter) {
    String taskId = "once-resume-" + runStatus.toLowerCase();
    String run = rows.create(TestTasks.onceNoop(taskId), T0_MS, NOW_MS);
    rows.setStatus(run, runStatus, runStatus.equals("PAUSED") ? 0 : 1);
    rows.setTaskState(taskId, "PAUSED");

    assertThat(store.apply(Transition.RESUME, request("r", taskId, false)))
        .isInstanceOf(Result.Applied.class);

    assertThat(rows.taskState(taskId)).isEqualTo(stateAfter);
    assertThat(rows.statuses(taskId))
        .containsOnly(entry(run, runStatus.equals("PAUSED") ? "SCHEDULED" : runStatus));
  }

  /**
   * Instances of paused tasks (a paused DEPENDENCY task's TRIGGER) are created held PAUSED, with an
   * audit row saying why; an instance id that exists creates nothing.
   */
  @Test
  void instancesOfPausedTasksAreCreatedHeld() {
    String taskId = "create-paused";
    String slot = taskIn(taskId, "PAUSED");
    String triggered = InstanceIds.inFlow(taskId, "flow-1");
    List<NewInstance> instances =
        List.of(
            new NewInstance(
                triggered,
                taskId,
                1,
                NOW_MS,
                "trace",
                "triggered",
                "flow-1",
                rows.oneShot(taskId)));

    assertThat(store.createPaused(instances, "test", NOW_MS)).isEqualTo(1);
    assertThat(store.createPaused(instances, "test", NOW_MS)).as("again").isZero();

    assertThat(rows.statuses(taskId))
        .containsOnly(entry(slot, "PAUSED"), entry(triggered, "PAUSED"));
    assertThat(rows.moves(triggered))
        .containsExactly("SCHEDULED>PAUSED: triggered while its task is paused: waits for RESUME");
  }

  /** Puts a new task in {@code state}, as its commands or its run would leave it; its slot id. */
  private static String taskIn(String taskId, String state) {
    if (state.equals("ENDED")) {
      String slot = rows.create(TestTasks.onceNoop(taskId), T0_MS - HOUR_MS, NOW_MS - HOUR_MS);
      rows.setStatus(slot, "SUCCESS", 1);
      rows.setTaskState(taskId, "ENDED");
      return slot;
    }
    String slot = rows.create(hourly(taskId, MisfirePolicy.FIRE_ONCE_NOW), T0_MS, NOW_MS);
    if (!state.equals("ACTIVE")) {
      rows.setStatus(slot, state.equals("PAUSED") ? "PAUSED" : "CANCELLED", 0);
      rows.setTaskState(taskId, state);
    }
    return slot;
  }

  /** An ACTIVE hourly task with one instance in each status: status to instance id. */
  private static Map<String, String> instancesInEveryStatus(String taskId) {
    String scheduled = rows.create(hourly(taskId, MisfirePolicy.FIRE_ONCE_NOW), T0_MS, NOW_MS);
    List<String> statuses = List.of("DISPATCHED", "RUNNING", "RETRYING", "PAUSED", "SUCCESS");
    Map<String, String> ids = new HashMap<>(Map.of("SCHEDULED", scheduled));
    for (int i = 0; i < statuses.size(); i++) {
      long dueMs = T0_MS - (i + 1) * HOUR_MS;
      String id = InstanceIds.of(taskId, dueMs);
      String status = statuses.get(i);
      rows.addInstance(id, taskId, dueMs, status, status.equals("RETRYING") ? 1 : 0);
      ids.put(status, id);
    }
    return ids;
  }

  private static TaskSpec hourly(String taskId, MisfirePolicy misfire) {
    return TestTasks.noop(
        taskId,
        new Trigger.Cron("0 0 * * * ?", ZoneOffset.UTC),
        misfire,
        MisfirePolicy.DEFAULT_MAX_FIRE_ALL,
        true,
        ConcurrencyPolicy.DEFAULT);
  }

  private static Transition transition(String command) {
    return Transition.ALL.stream().filter(t -> t.name().equals(command)).findFirst().orElseThrow();
  }

  private static Request request(String commandId, String taskId, boolean interrupt) {
    return new Request(commandId, taskId, null, "because", "trace", "test", NOW_MS, interrupt);
  }
}
