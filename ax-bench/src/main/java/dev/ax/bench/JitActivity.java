package dev.ax.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * How long this JVM's JIT compilers have worked since a starting point, from the {@link
 * CompilationMXBean}: the sum over compiler threads, so it can exceed the wall time. The bench uses
 * it to tell a warmed-up JVM from one still compiling its hot paths, which on two shared cores
 * takes CPU from the pipeline and leaves code running interpreted or in the profiling tier.
 *
 * <p>Immutable; {@link #compileMs()} reads the bean, which is thread-safe.
 */
public final class JitActivity {

  private static final CompilationMXBean BEAN = ManagementFactory.getCompilationMXBean();

  private final long startMs;

  private JitActivity(long startMs) {
    this.startMs = startMs;
  }

  /** Starts counting now. */
  public static JitActivity start() {
    return new JitActivity(totalMs());
  }

  /** Whether this JVM reports compile time at all; if not, {@link #compileMs()} is always 0. */
  public static boolean isMeasured() {
    return BEAN != null && BEAN.isCompilationTimeMonitoringSupported();
  }

  /** Milliseconds of compiling since {@link #start()}, summed over the compiler threads. */
  public long compileMs() {
    return totalMs() - startMs;
  }

  private static long totalMs() {
    return isMeasured() ? BEAN.getTotalCompilationTime() : 0;
  }
}
