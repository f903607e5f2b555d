package dev.ax.systemtest;

import dev.ax.common.thread.DaemonThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Samples, every 100 ms on a thread of its own, where this machine's CPU time goes: the machine's
 * own counters ({@code /proc/stat}: busy, iowait, steal) and every process's user + system time
 * ({@code /proc/<pid>/stat}), and how late its own thread woke up. A test uses it to tell what the
 * machine did while tasks started late: one process burning both cores, the disk (iowait), the host
 * taking the CPU away (steal), or nothing at all.
 *
 * <p>Linux only: where {@code /proc/stat} cannot be read, {@link #start} returns a sampler that
 * records nothing. Thread-safe: the samples are guarded by {@code this}.
 */
final class HostSampler implements AutoCloseable {

  private static final long EVERY_MS = 100;
  private static final int FSYNC_EVERY_NTH = 5;
  private static final int PROCESSES_EVERY_NTH = 5;

  /**
   * One sample: the machine's CPU counters since the previous sample, in clock ticks (1/100 s on
   * Linux), each process's CPU ticks since the previous sample that read them (every fifth; only
   * those that used any), and how many milliseconds later than planned the sampler woke up; the
   * kernel's I/O pressure since the previous sample ({@code /proc/pressure/io}: time some, or all,
   * runnable tasks waited for I/O; -1 where the kernel has none), and how long appending 128 bytes
   * to a file of its own took (no sync: a write that waits is the file system holding writers up,
   * e.g. a journal commit), and every fifth sample how long forcing that file to disk took ({@code
   * fsync}, -1 in between): on ext4 an fsync waits for the journal, which first writes every file's
   * dirty data, so it shows what the database's own fsyncs (page flushes) wait for.
   */
  record Sample(
      long atMs,
      long busyTicks,
      long idleTicks,
      long iowaitTicks,
      long stealTicks,
      Map<Long, Long> ticksByPid,
      long wakeUpLateMs,
      long ioSomeStallMs,
      long ioFullStallMs,
      long fileWriteMs,
      long fsyncMs) {}

  private final boolean available;
  private final List<Sample> samples = new ArrayList<>();
  private final Map<Long, String> commByPid = new HashMap<>();
  private final Thread thread;
  private volatile boolean closed;
  private long sampleCount;

  private final Path probeFile;

  private HostSampler(boolean available, Path probeFile) {
    this.available = available;
    this.probeFile = probeFile;
    this.thread = DaemonThreads.thread("host-sampler", this::run);
  }

  /**
   * @param probeFile a file to append to, on the file system the database and the broker write to
   */
  static HostSampler start(Path probeFile) {
    HostSampler sampler = new HostSampler(Files.isReadable(Path.of("/proc/stat")), probeFile);
    if (sampler.available) {
      sampler.thread.start();
    }
    return sampler;
  }

  boolean available() {
    return available;
  }

  private void run() {
    long[] previousMachine = machineTicks();
    long[] previousIo = ioStallUs();
    Map<Long, Long> previousByPid = processTicks();
    long plannedMs = System.currentTimeMillis() + EVERY_MS;
    while (!closed) {
      try {
        Thread.sleep(Math.max(0, plannedMs - System.currentTimeMillis())); // the sampling period
      } catch (InterruptedException e) {
        return;
      }
      long nowMs = System.currentTimeMillis();
      long fileWriteMs = appendToProbeFile();
      long fsyncMs = ++sampleCount % FSYNC_EVERY_NTH == 0 ? forceProbeFile() : -1;
      long[] machine = machineTicks();
      long[] io = ioStallUs();
      // Reading every process's stat file costs CPU of its own: every fifth sample only.
      boolean readProcesses = sampleCount % PROCESSES_EVERY_NTH == 2;
      Map<Long, Long> byPid = readProcesses ? processTicks() : previousByPid;
      Map<Long, Long> deltas = new HashMap<>();
      for (Map.Entry<Long, Long> entry : byPid.entrySet()) {
        long ticks = entry.getValue();
        long delta = ticks - previousByPid.getOrDefault(entry.getKey(), ticks);
        if (delta > 0) {
          deltas.put(entry.getKey(), delta);
        }
      }
      Sample sample =
          new Sample(
              nowMs,
              machine[0] - previousMachine[0],
              machine[1] - previousMachine[1],
              machine[2] - previousMachine[2],
              machine[3] - previousMachine[3],
              deltas,
              Math.max(0, nowMs - plannedMs),
              io[0] < 0 ? -1 : (io[0] - previousIo[0]) / 1000,
              io[1] < 0 ? -1 : (io[1] - previousIo[1]) / 1000,
              fileWriteMs,
              fsyncMs);
      synchronized (this) {
        samples.add(sample);
      }
      previousMachine = machine;
      previousIo = io;
      previousByPid = byPid;
      plannedMs = Math.max(plannedMs + EVERY_MS, nowMs);
    }
  }

  /** The µs some and all tasks stalled on I/O since boot, or -1s without pressure stall info. */
  private static long[] ioStallUs() {
    try {
      List<String> lines = Files.readAllLines(Path.of("/proc/pressure/io"));
      return new long[] {totalOf(lines.get(0)), totalOf(lines.get(1))};
    } catch (IOException | RuntimeException e) {
      return new long[] {-1, -1};
    }
  }

  private static long totalOf(String line) {
    return Long.parseLong(line.substring(line.indexOf("total=") + "total=".length()).trim());
  }

  /** How long one append of 128 bytes took, in ms; -1 if it failed. */
  private long appendToProbeFile() {
    long startNs = System.nanoTime();
    try {
      Files.write(
          probeFile,
          new byte[128],
          java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
    } catch (IOException e) {
      return -1;
    }
    return java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
  }

  /** How long forcing the probe file to disk took, in ms; -1 if it failed. */
  private long forceProbeFile() {
    long startNs = System.nanoTime();
    try (java.nio.channels.FileChannel channel =
        java.nio.channels.FileChannel.open(probeFile, java.nio.file.StandardOpenOption.WRITE)) {
      channel.force(true);
    } catch (IOException e) {
      return -1;
    }
    return java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
  }

  /** busy, idle, iowait, steal ticks since boot, from the first line of /proc/stat. */
  private static long[] machineTicks() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long user = Long.parseLong(f[1]);
      long nice = Long.parseLong(f[2]);
      long system = Long.parseLong(f[3]);
      long idle = Long.parseLong(f[4]);
      long iowait = Long.parseLong(f[5]);
      long irq = Long.parseLong(f[6]);
      long softirq = Long.parseLong(f[7]);
      long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
      return new long[] {user + nice + system + irq + softirq, idle, iowait, steal};
    } catch (IOException | RuntimeException e) {
      return new long[4];
    }
  }

  /** Every process's user + system ticks since it started. */
  private Map<Long, Long> processTicks() {
    Map<Long, Long> byPid = new HashMap<>();
    try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
      for (Path entry : (Iterable<Path>) entries::iterator) {
        String name = entry.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          String stat = Files.readString(entry.resolve("stat"));
          int close = stat.lastIndexOf(')');
          // Fields after the command: state is field 3, utime field 14, stime field 15.
          String[] f = stat.substring(close + 2).split(" ");
          long pid = Long.parseLong(name);
          byPid.put(pid, Long.parseLong(f[11]) + Long.parseLong(f[12]));
          synchronized (this) {
            commByPid.computeIfAbsent(pid, p -> stat.substring(stat.indexOf('(') + 1, close));
          }
        } catch (IOException | RuntimeException e) {
          // The process ended between the listing and the read.
        }
      }
    } catch (IOException e) {
      // /proc unreadable this once: an empty sample.
    }
    return byPid;
  }

  /**
   * The share of the machine's CPU time that was busy over the samples of the last {@code lastMs},
   * in percent; 0 when there are none (or no /proc).
   */
  synchronized int busyPercentOver(long lastMs) {
    long sinceMs = System.currentTimeMillis() - lastMs;
    long busy = 0;
    long total = 0;
    for (int i = samples.size() - 1; i >= 0 && samples.get(i).atMs() >= sinceMs; i--) {
      Sample s = samples.get(i);
      busy += s.busyTicks();
      total += s.busyTicks() + s.idleTicks() + s.iowaitTicks() + s.stealTicks();
    }
    return total == 0 ? 0 : (int) (100 * busy / total);
  }

  synchronized List<Sample> samples() {
    return List.copyOf(samples);
  }

  /** The command name the kernel gave {@code pid} when it was first seen, or "pid N". */
  synchronized String comm(long pid) {
    return commByPid.getOrDefault(pid, "pid " + pid);
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
  }
}
