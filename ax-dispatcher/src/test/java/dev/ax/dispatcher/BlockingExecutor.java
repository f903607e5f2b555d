package dev.ax.dispatcher;

import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import dev.ax.spi.TaskExecutor;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * Test handler {@code block}: records that it started, waits until {@link #release}d (then
 * succeeds) or interrupted (and records that it was), by instance id.
 */
public final class BlockingExecutor implements TaskExecutor {

  public static final Set<String> STARTED = ConcurrentHashMap.newKeySet();
  public static final Set<String> INTERRUPTED = ConcurrentHashMap.newKeySet();
  private static final Map<String, CountDownLatch> RELEASES = new ConcurrentHashMap<>();

  /** Lets the run of {@code instanceId} succeed, now or as soon as it starts. */
  public static void release(String instanceId) {
    releaseOf(instanceId).countDown();
  }

  private static CountDownLatch releaseOf(String instanceId) {
    return RELEASES.computeIfAbsent(instanceId, id -> new CountDownLatch(1));
  }

  @Override
  public String name() {
    return "block";
  }

  @Override
  public ExecutionResult execute(ExecutionContext context) throws InterruptedException {
    STARTED.add(context.instanceId());
    try {
      releaseOf(context.instanceId()).await();
      return ExecutionResult.ok();
    } catch (InterruptedException e) {
      INTERRUPTED.add(context.instanceId());
      throw e;
    }
  }
}
