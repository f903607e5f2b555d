package dev.ax.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The machine's idle and stolen CPU time since a starting point, summed over its CPUs, from the
 * first line of Linux's {@code /proc/stat}. Idle time says whether a run had cores to spare; steal
 * time is what the hypervisor gave other guests while this one wanted to run, the one direct
 * measure of a noisy neighbour (a load average counts this machine's own threads too). -1 where
 * {@code /proc/stat} cannot be read.
 *
 * <p>Immutable.
 */
public final class MachineCpu {

  private static final Path PROC_STAT = Path.of("/proc/stat");

  /** The kernel's clock ticks per second for {@code /proc/stat} (USER_HZ, 100 on Linux). */
  private static final long TICKS_PER_SECOND = 100;

  /** Idle and stolen CPU time since the start, in ms; -1 when not known. */
  public record Used(long idleMs, long stealMs) {}

  /** One reading of the aggregate {@code cpu} line, in clock ticks. */
  record Reading(long idleTicks, long stealTicks) {}

  private final Optional<Reading> start;

  private MachineCpu(Optional<Reading> start) {
    this.start = start;
  }

  /** Starts counting now. */
  public static MachineCpu start() {
    return new MachineCpu(read());
  }

  /** Idle and steal time since {@link #start()}. */
  public Used used() {
    Optional<Reading> now = read();
    if (start.isEmpty() || now.isEmpty()) {
      return new Used(-1, -1);
    }
    return new Used(
        ticksToMs(now.get().idleTicks() - start.get().idleTicks()),
        ticksToMs(now.get().stealTicks() - start.get().stealTicks()));
  }

  /**
   * Parses the aggregate line, {@code cpu user nice system idle iowait irq softirq steal ...}; idle
   * includes iowait. Empty when the line is not that.
   */
  static Optional<Reading> parse(String line) {
    String[] fields = line.trim().split("\\s+");
    if (fields.length < 9 || !fields[0].equals("cpu")) {
      return Optional.empty();
    }
    try {
      long idle = Long.parseLong(fields[4]) + Long.parseLong(fields[5]);
      long steal = Long.parseLong(fields[8]);
      return Optional.of(new Reading(idle, steal));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static Optional<Reading> read() {
    try {
      List<String> lines = Files.readAllLines(PROC_STAT);
      return lines.isEmpty() ? Optional.empty() : parse(lines.get(0));
    } catch (IOException | SecurityException e) {
      return Optional.empty();
    }
  }

  private static long ticksToMs(long ticks) {
    return ticks * 1000 / TICKS_PER_SECOND;
  }
}
