package dev.ax.common.testing;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.model.ConcurrencyPolicy;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.TaskState;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.StoredTask;
import java.time.Duration;
import java.util.Map;

/** Task specs that tests need often, so each test states only what it cares about. */
public final class TestTasks {

  private TestTasks() {}

  /**
   * A due event without a copy of the instance row (no attempt, retry base, seq, task version or
   * flow run): the dispatcher reads the row when it claims, as after a dead-letter replay.
   */
  public static TaskDueEvent dueEvent(
      String taskId,
      String instanceId,
      long dueAtMs,
      long epoch,
      long emittedAtMs,
      String traceId,
      String group) {
    return new TaskDueEvent(
        AxJson.VERSION,
        taskId,
        instanceId,
        dueAtMs,
        epoch,
        emittedAtMs,
        traceId,
        group,
        null,
        null,
        null,
        null,
        null);
  }

  /**
   * A one-shot task of the default group, due at once, run by the in-process {@code noop} handler
   * with a 5 s timeout, the default retry policy and no parameters.
   */
  public static TaskSpec onceNoop(String taskId) {
    return noop(taskId, Trigger.Once.after(Duration.ZERO));
  }

  /**
   * A one-shot {@link #noop noop} task (due 5 ms after it is stored) as ingest hands it to the
   * store: trace id {@code trace-<taskId>}, its first instance due at {@code dueAtMs}.
   */
  public static NewTask newTask(String taskId, long dueAtMs) {
    return new NewTask(
        noop(taskId, Trigger.Once.after(Duration.ofMillis(5))), "trace-" + taskId, dueAtMs);
  }

  /** {@link #newTask} with a name and a description for people. */
  public static NewTask named(String taskId, long dueAtMs, String name, String description) {
    TaskSpec spec =
        noop(taskId, Trigger.Once.after(Duration.ofMillis(5))).withLabels(name, description);
    return new NewTask(spec, "trace-" + taskId, dueAtMs);
  }

  /**
   * A task of the default group with {@code trigger}, run by the in-process {@code noop} handler
   * with a 5 s timeout, the default retry and firing policies and no parameters.
   */
  public static TaskSpec noop(String taskId, Trigger trigger) {
    return noop(
        taskId,
        trigger,
        MisfirePolicy.DEFAULT,
        MisfirePolicy.DEFAULT_MAX_FIRE_ALL,
        true,
        ConcurrencyPolicy.DEFAULT);
  }

  /**
   * As {@link #noop(String, Trigger)}, with the firing policy given: what it does with missed
   * slots, and whether and how it runs while its previous instance still runs.
   */
  public static TaskSpec noop(
      String taskId,
      Trigger trigger,
      MisfirePolicy misfire,
      int maxFireAll,
      boolean concurrent,
      ConcurrencyPolicy concurrencyPolicy) {
    return new TaskSpec(
        taskId,
        "default",
        trigger,
        ExecutorSpec.inProcess("noop"),
        Duration.ofSeconds(5),
        RetryPolicy.DEFAULT,
        Map.of(),
        misfire,
        maxFireAll,
        concurrent,
        concurrencyPolicy);
  }

  /** {@code spec} as the task store reads it back: version 1, active, trace id {@code trace}. */
  public static StoredTask stored(TaskSpec spec) {
    return new StoredTask(spec, 1, TaskState.ACTIVE, "trace");
  }

  /**
   * A spec with the default misfire and concurrency policies: the seven fields most tests state,
   * and the four they leave as a new task has them.
   */
  public static TaskSpec spec(
      String taskId,
      String group,
      Trigger trigger,
      ExecutorSpec executor,
      Duration timeout,
      RetryPolicy retry,
      Map<String, String> params) {
    return new TaskSpec(
        taskId,
        group,
        trigger,
        executor,
        timeout,
        retry,
        params,
        MisfirePolicy.DEFAULT,
        MisfirePolicy.DEFAULT_MAX_FIRE_ALL,
        true,
        ConcurrencyPolicy.DEFAULT);
  }
}
