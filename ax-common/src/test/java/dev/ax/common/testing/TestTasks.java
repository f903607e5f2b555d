package dev.ax.common.testing;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import java.time.Duration;
import java.util.Map;

/** Task specs that tests need often, so each test states only what it cares about. */
public final class TestTasks {

  private TestTasks() {}

  /**
   * A one-shot task of the default group, due at once, run by the in-process {@code noop} handler
   * with a 5 s timeout, the default retry policy and no parameters.
   */
  public static TaskSpec onceNoop(String taskId) {
    return noop(taskId, Trigger.Once.after(Duration.ZERO));
  }

  /**
   * A task of the default group with {@code trigger}, run by the in-process {@code noop} handler
   * with a 5 s timeout, the default retry policy and no parameters.
   */
  public static TaskSpec noop(String taskId, Trigger trigger) {
    return new TaskSpec(
        taskId,
        "default",
        trigger,
        ExecutorSpec.inProcess("noop"),
        Duration.ofSeconds(5),
        RetryPolicy.DEFAULT,
        Map.of());
  }
}
