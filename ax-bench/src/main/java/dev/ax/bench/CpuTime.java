package dev.ax.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * CPU time used since a starting point by this JVM (every stage, and the embedded broker), summed
 * over its threads, and by the embedded database server when it is a child process of this JVM: how
 * much work a run cost, which on a shared machine varies far less between runs than lateness does.
 * -1 for what is not reported (a JVM without the measure, an external database).
 *
 * <p>Immutable; the bean and process handles it reads are thread-safe.
 */
public final class CpuTime {

  /** CPU used since the start, in ms; -1 for what is not reported. */
  public record Used(long jvmMs, long databaseMs) {}

  private final List<ProcessHandle> stageJvms;
  private final long jvmStartNanos;
  private final Optional<ProcessHandle> database;
  private final long databaseStartNanos;

  private CpuTime(List<ProcessHandle> stageJvms, Optional<ProcessHandle> database) {
    this.stageJvms = List.copyOf(stageJvms);
    this.jvmStartNanos = jvmsNanos();
    this.database = database;
    this.databaseStartNanos = database.map(CpuTime::processNanos).orElse(-1L);
  }

  /** Starts counting now, for this JVM. */
  public static CpuTime start() {
    return start(List.of());
  }

  /** Starts counting now, for this JVM and {@code stageJvms} (stages in JVMs of their own). */
  public static CpuTime start(List<ProcessHandle> stageJvms) {
    return new CpuTime(stageJvms, embeddedDatabase());
  }

  /** CPU used since the start; {@code jvmMs} sums this JVM and the stage JVMs. */
  public Used used() {
    long databaseNanos = database.map(CpuTime::processNanos).orElse(-1L);
    return new Used(since(jvmStartNanos, jvmsNanos()), since(databaseStartNanos, databaseNanos));
  }

  /** This JVM's CPU time plus the stage JVMs'; -1 when this JVM does not report its own. */
  private long jvmsNanos() {
    long own = jvmNanos();
    if (own < 0) {
      return -1;
    }
    return own + stageJvms.stream().mapToLong(p -> Math.max(0, processNanos(p))).sum();
  }

  private static long since(long startNanos, long nowNanos) {
    return nowNanos < 0 || startNanos < 0 ? -1 : (nowNanos - startNanos) / 1_000_000;
  }

  private static long jvmNanos() {
    OperatingSystemMXBean bean = ManagementFactory.getOperatingSystemMXBean();
    if (bean instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /** The embedded MariaDB server: a descendant process whose program is mariadbd or mysqld. */
  static Optional<ProcessHandle> embeddedDatabase() {
    return ProcessHandle.current()
        .descendants()
        .filter(
            process ->
                process
                    .info()
                    .command()
                    .map(command -> command.endsWith("/mariadbd") || command.endsWith("/mysqld"))
                    .orElse(false))
        .findFirst();
  }

  private static long processNanos(ProcessHandle process) {
    return process.info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
  }
}
