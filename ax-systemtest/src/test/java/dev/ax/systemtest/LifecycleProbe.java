package dev.ax.systemtest;

import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import dev.ax.spi.TaskExecutor;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Test handler {@code probe}: records every execution (instance, attempt, and the spec version the
 * task's {@code params.v} names) for {@link LifecycleModelIT}, and fails when {@code params.fail}
 * is {@code "true"}.
 */
public final class LifecycleProbe implements TaskExecutor {

  /** One execution, as the executor saw it. */
  record Execution(String instanceId, int attempt, String version) {}

  static final Queue<Execution> EXECUTIONS = new ConcurrentLinkedQueue<>();

  @Override
  public String name() {
    return "probe";
  }

  @Override
  public ExecutionResult execute(ExecutionContext context) {
    EXECUTIONS.add(
        new Execution(
            context.instanceId(), context.attempt(), context.params().getOrDefault("v", "?")));
    return Boolean.parseBoolean(context.params().getOrDefault("fail", "false"))
        ? ExecutionResult.failure("failing on purpose (params.fail)")
        : ExecutionResult.ok();
  }
}
