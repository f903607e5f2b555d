package dev.ax.dispatcher.executor;

import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import dev.ax.spi.TaskExecutor;

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
