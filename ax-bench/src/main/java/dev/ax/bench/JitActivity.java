package dev.ax.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

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

  private final List<ProcessHandle> others;
  private final long startMs;

  private JitActivity(List<ProcessHandle> others) {
    this.others = List.copyOf(others);
    this.startMs = totalMs();
  }

  /** Starts counting now, for this JVM. */
  public static JitActivity start() {
    return new JitActivity(List.of());
  }

  /**
   * Starts counting now, for this JVM and {@code others} (stages in JVMs of their own, counted by
   * {@link CompilerThreadCpu}).
   */
  public static JitActivity start(List<ProcessHandle> others) {
    return new JitActivity(others);
  }

  /** Whether this JVM reports compile time at all; if not, {@link #compileMs()} is always 0. */
  public static boolean isMeasured() {
    return BEAN != null && BEAN.isCompilationTimeMonitoringSupported();
  }

  /** Milliseconds of compiling since the start, summed over the compiler threads (of every JVM). */
  public long compileMs() {
    return totalMs() - startMs;
  }

  private long totalMs() {
    return (isMeasured() ? BEAN.getTotalCompilationTime() : 0) + CompilerThreadCpu.ms(others);
  }
}
