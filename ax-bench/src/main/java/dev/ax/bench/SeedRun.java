package dev.ax.bench;

import dev.ax.bench.SeedSchedule.ScheduleClass;
import dev.ax.cli.kafka.TaskCommandJson;
import dev.ax.cli.text.Times;
import dev.ax.common.contract.AxJson;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * One {@code ax bench --mix seed} run through the bench's pipeline: registers the mix's cron tasks,
 * waits until every one is stored, counts their firings for the duration ({@link SeedFirings}), and
 * reports per schedule class the start lateness and the missed, doubled, early and unexpected
 * firings, the CPU per firing and the ticker's batches per firing instant; then deletes its tasks.
 * Not thread-safe: runs on the bench's main thread.
 */
final class SeedRun {

  /** Completions of a slot are awaited this long after the window's end before it is judged. */
  static final Duration GRACE = Duration.ofSeconds(30);

  /** During the run, slots due this long ago are judged (and forgotten). */
  private static final Duration SETTLE_LAG = Duration.ofMinutes(1);

  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration STORED_WITHIN = Duration.ofMinutes(5);
  private static final Duration TASK_TIMEOUT = Duration.ofSeconds(30);

  private SeedRun() {}

  /**
   * @return what makes the run a failure (missed, doubled, early or unexpected firings); empty when
   *     it passed
   */
  static List<String> run(SeedMix mix, BenchDriver driver, String runId, PrintWriter out)
      throws InterruptedException, SQLException {
    String prefix = "seed-" + runId.substring(runId.indexOf('-') + 1);
    SeedSchedule schedule = SeedSchedule.of(mix.tasks(), mix.seed(), prefix);
    out.printf(
        Locale.ROOT,
        "Seed mix: %d tasks (%s), %d distinct cron expressions, seed %d, measured for %s%n",
        schedule.size(),
        schedule.counts(),
        schedule.expressions().size(),
        mix.seed(),
        BenchCommand.text(mix.duration()));
    out.flush();
    List<Future<RecordMetadata>> sends = new ArrayList<>(schedule.size());
    for (SeedSchedule.SeedTask task : schedule.tasks()) {
      TaskCommandJson command =
          TaskCommandJson.create(task.taskId())
              .cron(task.expression(), "UTC")
              .inProcess(driver.handler())
              .timeout(TASK_TIMEOUT);
      driver.params().forEach(command::param);
      sends.add(driver.kafka().sendCommand(task.taskId(), command.toBytes()));
    }
    driver.kafka().awaitAll(sends);
    try {
      awaitStored(driver, prefix, schedule.size());
      return measure(mix, schedule, driver, prefix, out);
    } finally {
      delete(schedule, driver);
    }
  }

  private static List<String> measure(
      SeedMix mix, SeedSchedule schedule, BenchDriver driver, String prefix, PrintWriter out)
      throws InterruptedException {
    long nowMs = driver.context().clock().millis();
    // From the next whole second on: every task is stored, so each of its slots is owed.
    long fromMs = (nowMs / 1000 + 2) * 1000;
    long untilMs = fromMs + mix.duration().toMillis() - 1;
    SeedFirings firings = new SeedFirings(schedule, prefix, fromMs, untilMs);
    out.printf(
        Locale.ROOT,
        "Every task stored; counting the slots due from %s to %s%n",
        Times.clock(fromMs),
        Times.clock(untilMs));
    out.flush();
    CpuTime cpu = null;
    TickerFigures tickerAtStart = null;
    CpuTime.Used cpuUsed = null;
    TickerFigures tickerDuring = null;
    DatabaseWork databaseAtStart = null;
    DatabaseWork databaseDuring = null;
    long nextProgressMs = fromMs + PROGRESS_EVERY.toMillis();
    while (!driver.stop().isRaised()) {
      long now = driver.context().clock().millis();
      if (cpu == null && now >= fromMs) {
        cpu = CpuTime.start(driver.stages().processes());
        tickerAtStart = TickerFigures.parse(driver.stages().tickerMetrics());
        databaseAtStart = DatabaseWork.read(driver.context().dataSource());
      }
      if (cpuUsed == null && cpu != null && now > untilMs) {
        cpuUsed = cpu.used();
        tickerDuring = TickerFigures.parse(driver.stages().tickerMetrics()).since(tickerAtStart);
        databaseDuring = DatabaseWork.read(driver.context().dataSource()).since(databaseAtStart);
      }
      if (now > untilMs + GRACE.toMillis()) {
        break;
      }
      driver.kafka().completions(POLL).forEach(firings::accept);
      if (now >= nextProgressMs) {
        firings.settle(now - SETTLE_LAG.toMillis());
        SeedFirings.Counts all = firings.total();
        out.printf(
            Locale.ROOT,
            "  %s  judged %d slots: %d missed, %d doubled, %d early; start lateness p99 %d ms%n",
            Times.clock(now),
            all.expected,
            all.missed,
            all.doubled,
            all.early,
            all.lateness.getValueAtPercentile(99));
        out.flush();
        nextProgressMs = now + PROGRESS_EVERY.toMillis();
      }
    }
    firings.settle(untilMs);
    if (cpuUsed == null) {
      out.println("Seed mix interrupted before its end: figures so far.");
      cpuUsed = cpu == null ? new CpuTime.Used(0, 0) : cpu.used();
      tickerDuring =
          tickerAtStart == null
              ? TickerFigures.none()
              : TickerFigures.parse(driver.stages().tickerMetrics()).since(tickerAtStart);
      databaseDuring =
          databaseAtStart == null
              ? DatabaseWork.none()
              : DatabaseWork.read(driver.context().dataSource()).since(databaseAtStart);
    }
    return report(schedule, firings, cpuUsed, tickerDuring, databaseDuring, out);
  }

  private static List<String> report(
      SeedSchedule schedule,
      SeedFirings firings,
      CpuTime.Used cpu,
      TickerFigures ticker,
      DatabaseWork database,
      PrintWriter out) {
    out.println();
    out.printf(
        Locale.ROOT,
        "  %-7s %7s %6s %10s %10s %7s %8s %6s %10s  %s%n",
        "class",
        "tasks",
        "exprs",
        "expected",
        "observed",
        "missed",
        "doubled",
        "early",
        "unexpected",
        "start lateness ms p50 / p99 / max");
    List<String> problems = new ArrayList<>();
    for (ScheduleClass kind : ScheduleClass.values()) {
      reportClass(kind, schedule, firings, problems, out);
    }
    SeedFirings.Counts all = firings.total();
    long cpuMs = Math.max(0, cpu.jvmMs()) + Math.max(0, cpu.databaseMs());
    double perFiring = all.observed == 0 ? Double.NaN : (double) cpuMs / all.observed;
    out.printf(
        Locale.ROOT,
        "CPU per firing: %.3f ms (AX's JVMs %d ms + database %d ms over %d firings)%n",
        perFiring,
        cpu.jvmMs(),
        cpu.databaseMs(),
        all.observed);
    out.println("Database work per firing: " + database.perUnit(all.observed));
    firings.doubledSamples().forEach(sample -> out.println("Doubled slot: " + sample));
    double marksPerInstant =
        firings.dueInstants() == 0 ? Double.NaN : ticker.marks() / firings.dueInstants();
    out.printf(
        Locale.ROOT,
        "Ticker: %.0f batches marked for %d firings at %d distinct due times: %.2f batches per"
            + " firing instant, %.1f firings per batch; window load p99 <= %.0f ms%n",
        ticker.marks(),
        all.observed,
        firings.dueInstants(),
        marksPerInstant,
        ticker.marks() == 0 ? Double.NaN : all.observed / ticker.marks(),
        ticker.windowLoadP99Ms());
    out.printf(
        Locale.ROOT,
        "SEED_TOTAL expected=%d observed=%d missed=%d doubled=%d early=%d unexpected=%d"
            + " cpu_ms_per_firing=%.3f batches=%.0f due_instants=%d batches_per_instant=%.2f"
            + " late_after_judged=%d repeated_events=%d%n",
        all.expected,
        all.observed,
        all.missed,
        all.doubled,
        all.early,
        all.unexpected,
        perFiring,
        ticker.marks(),
        firings.dueInstants(),
        marksPerInstant,
        firings.afterSettle(),
        all.repeatedEvents);
    out.flush();
    return problems;
  }

  /**
   * Prints the line of schedule class {@code kind} (and its machine-read SEED line); adds a problem
   * when any of its firings was missed, doubled, early or unexpected.
   */
  private static void reportClass(
      ScheduleClass kind,
      SeedSchedule schedule,
      SeedFirings firings,
      List<String> problems,
      PrintWriter out) {
    SeedFirings.Counts c = firings.counts(kind);
    long tasks = schedule.tasks().stream().filter(t -> t.scheduleClass() == kind).count();
    long expressions =
        schedule.tasks().stream()
            .filter(t -> t.scheduleClass() == kind)
            .map(SeedSchedule.SeedTask::expression)
            .distinct()
            .count();
    Object[] counts = {c.expected, c.observed, c.missed, c.doubled, c.early, c.unexpected};
    Percentiles late = Percentiles.of(c.lateness);
    out.printf(
        Locale.ROOT,
        "  %-7s %7d %6d %10d %10d %7d %8d %6d %10d  %s%n",
        FormatArgs.of(kind.label(), tasks, expressions, counts, late));
    out.printf(
        Locale.ROOT,
        "SEED class=%s tasks=%d expected=%d observed=%d missed=%d doubled=%d early=%d"
            + " unexpected=%d p50=%d p99=%d max=%d%n",
        FormatArgs.of(kind.label(), tasks, counts, late.p50Ms(), late.p99Ms(), late.maxMs()));
    if (c.missed + c.doubled + c.early + c.unexpected > 0) {
      problems.add(
          String.format(
              Locale.ROOT,
              "%s-level firings: %d missed, %d doubled, %d early, %d unexpected",
              kind.label(),
              c.missed,
              c.doubled,
              c.early,
              c.unexpected));
    }
  }

  /** Waits until ingest stored every task of the mix (polling the database). */
  private static void awaitStored(BenchDriver driver, String prefix, int tasks)
      throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + STORED_WITHIN.toNanos();
    while (System.nanoTime() < deadline && !driver.stop().isRaised()) {
      try (Connection connection = driver.context().dataSource().getConnection();
          PreparedStatement count =
              connection.prepareStatement("SELECT COUNT(*) FROM ax_task WHERE task_id LIKE ?")) {
        count.setString(1, prefix + "-%");
        try (ResultSet rs = count.executeQuery()) {
          rs.next();
          if (rs.getLong(1) >= tasks) {
            return;
          }
        }
      }
      // Ingest's progress is only visible in the database: nothing to wait on but time.
      TimeUnit.MILLISECONDS.sleep(500);
    }
    throw new IllegalStateException(
        "ingest did not store the mix's " + tasks + " tasks within " + STORED_WITHIN);
  }

  /** DELETE commands for every task of the mix: they would fire on forever. */
  private static void delete(SeedSchedule schedule, BenchDriver driver)
      throws InterruptedException {
    List<Future<RecordMetadata>> sends = new ArrayList<>(schedule.size());
    for (SeedSchedule.SeedTask task : schedule.tasks()) {
      String command =
          "{\"v\":"
              + AxJson.VERSION
              + ",\"type\":\"DELETE\",\"taskId\":\""
              + task.taskId()
              + "\",\"commandId\":\"bench-seed-end\",\"reason\":\"ax bench --mix seed ended\"}";
      sends.add(
          driver
              .kafka()
              .sendCommand(
                  task.taskId(), command.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
    driver.kafka().awaitAll(sends);
  }
}
