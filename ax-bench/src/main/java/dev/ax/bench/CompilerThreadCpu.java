package dev.ax.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * How long the JIT compilers of other JVMs have worked: the CPU time of their compiler threads
 * (HotSpot names them {@code C1 CompilerThread<n>} and {@code C2 CompilerThread<n>}), read from
 * Linux's {@code /proc/<pid>/task/<tid>/}. The bench's own JVM answers through its
 * CompilationMXBean; a stage in another JVM has no such bean to ask. A compiler thread that has
 * ended is no longer counted (HotSpot starts and stops them as the queue needs), so the figure is a
 * lower bound. 0 where {@code /proc} cannot be read. Stateless.
 */
final class CompilerThreadCpu {

  private static final Path PROC = Path.of("/proc");

  /** The kernel's clock ticks per second for {@code /proc/.../stat} (USER_HZ, 100 on Linux). */
  private static final long TICKS_PER_SECOND = 100;

  private CompilerThreadCpu() {}

  /** CPU time of the compiler threads of {@code processes}, in ms, summed. */
  static long ms(List<ProcessHandle> processes) {
    long ticks = 0;
    for (ProcessHandle process : processes) {
      Path tasks = PROC.resolve(Long.toString(process.pid())).resolve("task");
      try (Stream<Path> threads = Files.list(tasks)) {
        ticks += threads.mapToLong(CompilerThreadCpu::compilerTicks).sum();
      } catch (IOException | SecurityException e) {
        // the process ended, or this is not Linux: nothing to count
      }
    }
    return ticks * 1000 / TICKS_PER_SECOND;
  }

  private static long compilerTicks(Path thread) {
    try {
      String name = Files.readString(thread.resolve("comm")).trim();
      if (!isCompiler(name)) {
        return 0;
      }
      return cpuTicks(Files.readString(thread.resolve("stat")));
    } catch (IOException | SecurityException e) {
      return 0; // the thread ended meanwhile
    }
  }

  /** Whether a thread name ({@code comm}, cut to 15 characters) is a HotSpot JIT compiler's. */
  static boolean isCompiler(String comm) {
    return comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre");
  }

  /**
   * User plus system time in a {@code stat} line: fields 14 and 15, counted after the command in
   * parentheses (which may hold spaces). 0 for a line that is not that.
   */
  static long cpuTicks(String stat) {
    int end = stat.lastIndexOf(')');
    if (end < 0) {
      return 0;
    }
    String[] fields = stat.substring(end + 1).trim().split("\\s+");
    // After the command: state is field 3, so utime (14) and stime (15) are at 11 and 12.
    if (fields.length < 13) {
      return 0;
    }
    try {
      return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
