package dev.ax.dispatcher.executor;

import dev.ax.common.spi.ExecutionContext;
import dev.ax.common.spi.ExecutionResult;
import dev.ax.common.spi.TaskExecutor;

/** In-process handler {@code noop}: succeeds at once. For load tests and smoke tests. */
public final class NoopExecutor implements TaskExecutor {
  @Override
  public String name() {
    return "noop";
  }

  @Override
  public ExecutionResult execute(ExecutionContext context) {
    return ExecutionResult.ok();
  }
}
