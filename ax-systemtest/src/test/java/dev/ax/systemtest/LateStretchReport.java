package dev.ax.systemtest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.stream.Collectors;

/**
 * Puts each stretch of late starts outside the fault windows next to what the probes saw while it
 * lasted, so that a run's summary says where the time went: firing late (the ticker) or starting
 * late after an on-time firing (the dispatcher); the database's and the broker's answer times; the
 * machine's CPU (busy, iowait, steal), the processes that used it, and how late a sampling thread
 * of the test's own JVM woke up.
 *
 * <p>Not thread-safe: built and read by the test's thread after the run.
 */
final class LateStretchReport {

  /** An instance started at least this late counts towards a late stretch. */
  static final long LATE_MS = 150;

  /** Late starts whose due times are closer than this belong to one stretch. */
  private static final long SAME_STRETCH_MS = 1_000;

  /** Probes are read from this long before the first due time of a stretch. */
  private static final long LEAD_MS = 500;

  /** One instance outside the fault windows: times in ms since the epoch, dispatched may be -1. */
  record Start(String instanceId, long dueMs, long dispatchedMs, long startMs) {
    long latenessMs() {
      return startMs - dueMs;
    }
  }

  private final List<Start> starts;
  private final List<LeaseSampler.Sample> database;
  private final List<BrokerProbe.Sample> broker;
  private final HostSampler host;
  private final SlowStatementSampler statements;
  private final Map<Long, String> namesByPid;
  private final LongFunction<String> offset;

  /**
   * @param namesByPid the processes the test started, by pid; others are named by their command
   * @param offset formats a time in ms since the epoch as the run's offset
   */
  LateStretchReport(
      List<Start> starts,
      List<LeaseSampler.Sample> database,
      List<BrokerProbe.Sample> broker,
      HostSampler host,
      SlowStatementSampler statements,
      Map<Long, String> namesByPid,
      LongFunction<String> offset) {
    this.starts = starts.stream().sorted(Comparator.comparingLong(Start::dueMs)).toList();
    this.database = database;
    this.broker = broker;
    this.host = host;
    this.statements = statements;
    this.namesByPid = namesByPid;
    this.offset = offset;
  }

  /** The late stretches, one line each, with what the probes saw. */
  List<String> lines() {
    List<String> lines = new ArrayList<>();
    List<List<Start>> stretches = new ArrayList<>();
    List<Start> current = null;
    long lastDueMs = Long.MIN_VALUE;
    for (Start start : starts) {
      if (start.latenessMs() < LATE_MS) {
        continue;
      }
      if (current == null || start.dueMs() - lastDueMs > SAME_STRETCH_MS) {
        current = new ArrayList<>();
        stretches.add(current);
      }
      current.add(start);
      lastDueMs = start.dueMs();
    }
    for (List<Start> stretch : stretches) {
      long fromMs = stretch.get(0).dueMs();
      long toMs = stretch.stream().mapToLong(Start::startMs).max().orElse(fromMs);
      long maxLateMs = stretch.stream().mapToLong(Start::latenessMs).max().orElse(0);
      long maxFiringLagMs =
          stretch.stream()
              .filter(s -> s.dispatchedMs() >= 0)
              .mapToLong(s -> s.dispatchedMs() - s.dueMs())
              .max()
              .orElse(-1);
      long onTime =
          starts.stream()
              .filter(s -> s.dueMs() >= fromMs && s.dueMs() <= lastDue(stretch))
              .filter(s -> s.latenessMs() < LATE_MS)
              .count();
      lines.add(
          String.format(
              "late stretch due %s..%s: %d late (max %d ms, firing lag max %d ms), %d on time"
                  + " among them; %s",
              offset.apply(fromMs),
              offset.apply(lastDue(stretch)),
              stretch.size(),
              maxLateMs,
              maxFiringLagMs,
              onTime,
              probes(fromMs - LEAD_MS, toMs)));
    }
    return lines;
  }

  /** What the probes saw from {@code fromMs} to {@code toMs}, outside any late stretch too. */
  String probes(long fromMs, long toMs) {
    long dbMax =
        database.stream()
            .filter(s -> s.atMs() >= fromMs && s.atMs() <= toMs + 2_000)
            .filter(s -> s.atMs() - s.rttMs() <= toMs)
            .mapToLong(LeaseSampler.Sample::rttMs)
            .max()
            .orElse(-1);
    long brokerMax =
        broker.stream()
            .filter(s -> s.atMs() >= fromMs && s.atMs() - s.rttMs() <= toMs)
            .mapToLong(BrokerProbe.Sample::rttMs)
            .max()
            .orElse(-1);
    String flushes = statements.flushesBetween(fromMs, toMs);
    if (!host.available()) {
      return String.format(
          "database rtt max %d ms, broker rtt max %d ms; %s", dbMax, brokerMax, flushes);
    }
    long busy = 0;
    long idle = 0;
    long iowait = 0;
    long steal = 0;
    long wakeUpLateMs = 0;
    long ioSomeMs = 0;
    long ioFullMs = 0;
    long fileWriteMs = 0;
    long fsyncMs = 0;
    Map<Long, Long> ticksByPid = new HashMap<>();
    for (HostSampler.Sample s : host.samples()) {
      if (s.atMs() < fromMs || s.atMs() > toMs + 100) {
        continue;
      }
      busy += s.busyTicks();
      idle += s.idleTicks();
      iowait += s.iowaitTicks();
      steal += s.stealTicks();
      wakeUpLateMs = Math.max(wakeUpLateMs, s.wakeUpLateMs());
      ioSomeMs += Math.max(0, s.ioSomeStallMs());
      ioFullMs += Math.max(0, s.ioFullStallMs());
      fileWriteMs = Math.max(fileWriteMs, s.fileWriteMs());
      fsyncMs = Math.max(fsyncMs, s.fsyncMs());
      s.ticksByPid().forEach((pid, ticks) -> ticksByPid.merge(pid, ticks, Long::sum));
    }
    long total = Math.max(1, busy + idle + iowait + steal);
    String top =
        ticksByPid.entrySet().stream()
            .sorted(Map.Entry.<Long, Long>comparingByValue().reversed())
            .limit(4)
            .map(e -> name(e.getKey()) + " " + e.getValue() * 10 + " ms")
            .collect(Collectors.joining(", "));
    return String.format(
        "database rtt max %d ms, broker rtt max %d ms; %s; cpu over %d ms: busy %d%%, iowait %d%%,"
            + " steal %d%%, io stall some %d ms / full %d ms, file append max %d ms, fsync max %d ms, sampler woke"
            + " up to %d ms late; most cpu: %s",
        dbMax,
        brokerMax,
        flushes,
        toMs - fromMs,
        100 * busy / total,
        100 * iowait / total,
        100 * steal / total,
        ioSomeMs,
        ioFullMs,
        fileWriteMs,
        fsyncMs,
        wakeUpLateMs,
        top);
  }

  /**
   * Every moment from {@code fromMs} to {@code toMs} at which the database or the broker took at
   * least {@link #LATE_MS} to answer, or the sampling thread woke up that late.
   */
  String spikes(long fromMs, long toMs) {
    List<Map.Entry<Long, String>> spikes = new ArrayList<>();
    database.stream()
        .filter(s -> s.atMs() >= fromMs && s.atMs() <= toMs && s.rttMs() >= LATE_MS)
        .forEach(s -> spikes.add(Map.entry(s.atMs() - s.rttMs(), "database " + s.rttMs())));
    broker.stream()
        .filter(s -> s.atMs() >= fromMs && s.atMs() <= toMs && s.rttMs() >= LATE_MS)
        .forEach(s -> spikes.add(Map.entry(s.atMs() - s.rttMs(), "broker " + s.rttMs())));
    host.samples().stream()
        .filter(s -> s.atMs() >= fromMs && s.atMs() <= toMs && s.wakeUpLateMs() >= LATE_MS)
        .forEach(
            s -> spikes.add(Map.entry(s.atMs() - s.wakeUpLateMs(), "wake-up " + s.wakeUpLateMs())));
    host.samples().stream()
        .filter(s -> s.atMs() >= fromMs && s.atMs() <= toMs && s.fileWriteMs() >= LATE_MS)
        .forEach(
            s ->
                spikes.add(
                    Map.entry(s.atMs() - s.fileWriteMs(), "file append " + s.fileWriteMs())));
    host.samples().stream()
        .filter(s -> s.atMs() >= fromMs && s.atMs() <= toMs && s.ioSomeStallMs() >= 50)
        .forEach(s -> spikes.add(Map.entry(s.atMs(), "io stall " + s.ioSomeStallMs())));
    host.samples().stream()
        .filter(s -> s.atMs() >= fromMs && s.atMs() <= toMs && s.fsyncMs() >= LATE_MS)
        .forEach(s -> spikes.add(Map.entry(s.atMs() - s.fsyncMs(), "fsync " + s.fsyncMs())));
    spikes.sort(Map.Entry.comparingByKey());
    return spikes.isEmpty()
        ? "none"
        : spikes.stream()
            .map(e -> offset.apply(e.getKey()) + " " + e.getValue() + " ms")
            .collect(Collectors.joining(", "));
  }

  private static long lastDue(List<Start> stretch) {
    return stretch.get(stretch.size() - 1).dueMs();
  }

  private String name(long pid) {
    String known = namesByPid.get(pid);
    return known != null ? known : host.comm(pid) + "/" + pid;
  }
}
