package dev.ax.dispatcher.executor;

import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import dev.ax.spi.TaskExecutor;

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
    long sleepMs = Long.parseLong(context.params().getOrDefault("sleepMs", "1000"));
    Thread.sleep(sleepMs);
    if (Boolean.parseBoolean(context.params().getOrDefault("fail", "false"))) {
      return ExecutionResult.failure(context.params().getOrDefault("message", "failed as asked"));
    }
    return ExecutionResult.ok();
  }
}
