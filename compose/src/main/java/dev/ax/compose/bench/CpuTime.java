package dev.ax.compose.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * CPU time this JVM (every stage, and the embedded broker, but not the database server) has used
 * since a starting point, summed over its threads: how much work a run cost, which on a shared
 * machine varies far less between runs than lateness does. -1 where the JVM does not report it.
 *
 * <p>Immutable; the bean it reads is thread-safe.
 */
public final class CpuTime {

  private final long startNanos;

  private CpuTime(long startNanos) {
    this.startNanos = startNanos;
  }

  /** Starts counting now. */
  public static CpuTime start() {
    return new CpuTime(processNanos());
  }

  /** Milliseconds of CPU since {@link #start()}, or -1 when not reported. */
  public long usedMs() {
    long now = processNanos();
    return now < 0 || startNanos < 0 ? -1 : (now - startNanos) / 1_000_000;
  }

  private static long processNanos() {
    OperatingSystemMXBean bean = ManagementFactory.getOperatingSystemMXBean();
    if (bean instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }
}
