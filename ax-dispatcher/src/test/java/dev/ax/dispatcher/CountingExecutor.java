package dev.ax.dispatcher;

import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import dev.ax.spi.TaskExecutor;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Test handler {@code count}: counts executions per instance id. */
public final class CountingExecutor implements TaskExecutor {

  static final Map<String, Integer> RUNS = new ConcurrentHashMap<>();

  @Override
  public String name() {
    return "count";
  }

  @Override
  public ExecutionResult execute(ExecutionContext context) {
    RUNS.merge(context.instanceId(), 1, Integer::sum);
    return ExecutionResult.ok();
  }
}
