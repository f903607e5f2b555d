package dev.ax.dispatcher;

import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import dev.ax.spi.TaskExecutor;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Test handler {@code block}: records that it started, waits until interrupted and records that it
 * was (by instance id).
 */
public final class BlockingExecutor implements TaskExecutor {

  public static final Set<String> STARTED = ConcurrentHashMap.newKeySet();
  public static final Set<String> INTERRUPTED = ConcurrentHashMap.newKeySet();

  @Override
  public String name() {
    return "block";
  }

  @Override
  public ExecutionResult execute(ExecutionContext context) throws InterruptedException {
    STARTED.add(context.instanceId());
    try {
      Thread.sleep(Long.MAX_VALUE);
      return ExecutionResult.ok();
    } catch (InterruptedException e) {
      INTERRUPTED.add(context.instanceId());
      throw e;
    }
  }
}
