package dev.ax.bench;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;

/**
 * The unmeasured start of an {@code ax bench}: rounds of tasks through the pipeline until the JIT
 * compilers settle. Not thread-safe: run by the bench's main thread before the measured runs.
 */
final class BenchWarmUp {

  /** The most tasks of one warm-up round. */
  static final int ROUND_TASKS = 10_000;

  /** A warm-up round with JIT compile time under this share of its wall time ends the warm-up. */
  private static final double JIT_SETTLED_SHARE = 0.05;

  private BenchWarmUp() {}

  /**
   * Runs unmeasured rounds of tasks (each due from 1 s after it is sent, spread over 2 s) until a
   * round's JIT compile time falls under {@link #JIT_SETTLED_SHARE} of its wall time or {@code
   * maxTasks} ({@code --warm-up}) tasks have run. A JVM holding the broker and every stage keeps
   * compiling for minutes under load (docs/BENCHMARKS.md, "A warmed-up JVM"); measured during that
   * time, lateness describes the compilers' competition for CPU more than the pipeline.
   */
  static void run(BenchDriver driver, String runId, int maxTasks) throws InterruptedException {
    PrintWriter out = driver.out();
    if (maxTasks == 0) {
      return;
    }
    out.println(
        "Warming up until the JIT compilers settle, with at most "
            + maxTasks
            + " unmeasured tasks (on two cores this takes a few minutes; --warm-up 0 skips it)...");
    out.flush();
    int left = maxTasks;
    for (int round = 1; left > 0 && !driver.stop().isRaised(); round++) {
      int roundTasks = Math.min(ROUND_TASKS, left);
      left -= roundTasks;
      BenchPlan plan =
          new BenchPlan(
              runId + "w" + round,
              roundTasks,
              driver.context().clock().millis(),
              Duration.ofSeconds(1),
              Duration.ofSeconds(2));
      JitActivity jit = JitActivity.start(driver.stages().processes());
      long startNanos = System.nanoTime();
      driver.produce(plan, false);
      driver.collect(plan, new BenchCollector(plan), false);
      long wallMs = Math.max(1, (System.nanoTime() - startNanos) / 1_000_000);
      long compileMs = jit.compileMs();
      out.printf(
          Locale.ROOT,
          "Warm-up round %d: %d unmeasured tasks in %d ms, JIT compiling for %d ms (%.0f%%)%n",
          round,
          roundTasks,
          wallMs,
          compileMs,
          100.0 * compileMs / wallMs);
      out.flush();
      if (JitActivity.isMeasured() && compileMs < wallMs * JIT_SETTLED_SHARE) {
        return;
      }
    }
    out.println(
        "Warm-up ended before the JIT compilers settled: the figures below include their"
            + " competition for CPU.");
    out.flush();
  }
}
