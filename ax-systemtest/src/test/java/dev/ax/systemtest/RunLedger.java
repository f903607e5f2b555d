package dev.ax.systemtest;

import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import dev.ax.spi.TaskExecutor;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Test handler {@code ledger}: counts the runs of each attempt ({@code instanceId:attempt}) across
 * every dispatcher in this JVM, then works for {@code params.workMs} (default 0), as an I/O-bound
 * task would.
 */
public final class RunLedger implements TaskExecutor {

  static final Map<String, Integer> RUNS = new ConcurrentHashMap<>();

  @Override
  public String name() {
    return "ledger";
  }

  @Override
  public ExecutionResult execute(ExecutionContext context) throws InterruptedException {
    RUNS.merge(context.instanceId() + ":" + context.attempt(), 1, Integer::sum);
    long workMs = Long.parseLong(context.params().getOrDefault("workMs", "0"));
    if (workMs > 0) {
      Thread.sleep(workMs);
    }
    return ExecutionResult.ok();
  }
}
