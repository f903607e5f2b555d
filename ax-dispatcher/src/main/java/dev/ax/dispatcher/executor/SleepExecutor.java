package dev.ax.dispatcher.executor;

import dev.ax.common.spi.ExecutionContext;
import dev.ax.common.spi.ExecutionResult;
import dev.ax.common.spi.TaskExecutor;

/**
 * In-process handler {@code sleep}: sleeps {@code params.sleepMs} (default 1000), then succeeds;
 * fails instead when {@code params.fail} is {@code true}. Responds to interruption, so a timeout
 * ends it. For demos.
 */
public final class SleepExecutor implements TaskExecutor {
  @Override
  public String name() {
    return "sleep";
  }

  @Override
  public ExecutionResult execute(ExecutionContext context) throws InterruptedException {
    long sleepMs = Long.parseLong(context.task().params().getOrDefault("sleepMs", "1000"));
    Thread.sleep(sleepMs);
    if (Boolean.parseBoolean(context.task().params().getOrDefault("fail", "false"))) {
      return ExecutionResult.failure(
          context.task().params().getOrDefault("message", "failed as asked"));
    }
    return ExecutionResult.ok();
  }
}
