package dev.ax.bench;

import dev.ax.cli.text.TextTable;
import dev.ax.cli.text.TextTable.Column;
import dev.ax.common.model.InstanceStatus;
import java.io.PrintWriter;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The result of one bench run, computed from the first completion event of every instance and the
 * audit log: lateness (claim minus due) and start lateness (start minus due) percentiles,
 * throughput, early starts, duplicates and missing tasks. Printed as a table and as one
 * machine-readable {@code BENCH key=value ...} line. Immutable once built.
 */
public final class BenchReport {

  private static final int SIGNIFICANT_DIGITS = 3;

  private final BenchPlan plan;
  private final int completed;
  private final long duplicateEvents;
  private final RunningTransitions running;
  private final FireTimes fires;
  private final long earlyStarts;
  private final long earlyClaims;
  private final Histogram lateness = new Histogram(SIGNIFICANT_DIGITS);
  private final Histogram startLateness = new Histogram(SIGNIFICANT_DIGITS);
  private final Map<InstanceStatus, Long> statuses = new EnumMap<>(InstanceStatus.class);
  private final double overallPerSecond;
  private final double dueWindowPerSecond;
  private final double overallSeconds;
  private final double ingestPerSecond;
  private final long jitMs;
  private final CpuTime.Used cpu;
  private final MachineCpu.Used machine;
  private final TransactionTimes transactions;

  /**
   * @param transactions the ticker's marks and the dispatchers' claims during the run
   * @param firstProduceMs when the first command was sent, on the database clock
   * @param jitMs how long the JIT compilers worked from the first send to the last completion
   *     (summed over compiler threads; see {@link JitActivity})
   * @param cpu CPU time this JVM and the embedded database used over the same span ({@link
   *     CpuTime})
   * @param machine the machine's idle and stolen CPU time over the same span ({@link MachineCpu})
   */
  public BenchReport(
      BenchPlan plan,
      BenchCollector collector,
      RunningTransitions running,
      FireTimes fires,
      TransactionTimes transactions,
      long firstProduceMs,
      long jitMs,
      CpuTime.Used cpu,
      MachineCpu.Used machine) {
    this.plan = plan;
    this.machine = machine;
    this.jitMs = jitMs;
    this.cpu = cpu;
    this.transactions = transactions;
    this.fires = fires;
    this.completed = collector.completed();
    this.duplicateEvents = collector.duplicateEvents();
    this.running = running;
    long early = 0;
    long earlyClaimed = 0;
    long lastFinishedAtMs = 0;
    for (BenchCollector.Completion e : collector.firstCompletions()) {
      long lateMs = e.claimedAtMs() - e.dueAtMs();
      long startLateMs = e.startedAtMs() - e.dueAtMs();
      if (lateMs < 0) {
        earlyClaimed++;
      }
      if (startLateMs < 0) {
        early++;
      }
      lateness.recordValue(Math.max(0, lateMs));
      startLateness.recordValue(Math.max(0, startLateMs));
      statuses.merge(e.status(), 1L, Long::sum);
      lastFinishedAtMs = Math.max(lastFinishedAtMs, e.finishedAtMs());
    }
    this.earlyStarts = early;
    this.earlyClaims = earlyClaimed;
    this.overallSeconds = Math.max(1, lastFinishedAtMs - firstProduceMs) / 1000.0;
    this.overallPerSecond = completed == 0 ? 0 : completed / overallSeconds;
    double dueWindowSeconds = Math.max(1, lastFinishedAtMs - plan.firstDueAtMs()) / 1000.0;
    this.dueWindowPerSecond = completed == 0 ? 0 : completed / dueWindowSeconds;
    this.ingestPerSecond =
        plan.tasks() * 1000.0 / Math.max(1, fires.lastCreatedAtMs() - firstProduceMs);
  }

  /** Tasks stored per second: the run's tasks over first send to the last instance stored. */
  public double ingestPerSecond() {
    return ingestPerSecond;
  }

  /** This run's figures for a {@link BenchSeries}. */
  public BenchSeries.Run seriesRun() {
    return new BenchSeries.Run(
        lateness.getValueAtPercentile(50),
        lateness.getValueAtPercentile(99),
        lateness.getMaxValue(),
        fires.fireLateness().getValueAtPercentile(99),
        machine.stealMs());
  }

  /** Claim lateness of every task of the run, in ms (a copy). */
  public Histogram lateness() {
    return lateness.copy();
  }

  /** Start lateness (started minus due) of every task of the run, in ms (a copy). */
  public Histogram startLateness() {
    return startLateness.copy();
  }

  /**
   * The run's figures beside the peer's: a task with more than one completion event counts as
   * started twice; the JVM's CPU is the bench's (in-jvm: every stage; processes: the broker and the
   * bench).
   */
  RoundFigures figures() {
    return new RoundFigures(
        earlyStarts, duplicateEvents, missing(), dueWindowPerSecond, cpu.jvmMs());
  }

  /** CPU time this JVM and the embedded database used during the run. */
  public CpuTime.Used cpu() {
    return cpu;
  }

  /** Tasks never completed. */
  public long missing() {
    return plan.tasks() - completed;
  }

  /** Everything that makes the run a failure; empty when it passed. */
  public List<String> problems() {
    return new Problems()
        .count(missing(), "task(s) never completed")
        .count(duplicateEvents, "duplicate completion event(s)")
        .count(running.extra(), "duplicate RUNNING transition(s) in ax_instance_log")
        .count(earlyStarts, "task(s) started before they were due")
        .count(
            fires.earlyFires(),
            "task(s) marked DISPATCHED before they were due (less AX_TICKER_EMIT_AHEAD)")
        .count(earlyClaims, "task(s) claimed before they were due")
        .list();
  }

  /**
   * The rows of what the run cost: transactions, compilation, CPU of AX, the database, the machine.
   */
  private void addCostRows(TextTable table) {
    table.row(
        "transactions, mean ms: ticker mark / dispatcher claim",
        String.format(
            Locale.ROOT,
            "%.1f / %.1f (%d / %d of them)",
            transactions.markMeanMs(),
            transactions.claimMeanMs(),
            transactions.marks(),
            transactions.claims()));
    table.row(
        "JIT compile time during the run, ms",
        JitActivity.isMeasured() ? String.valueOf(jitMs) : "not reported by this JVM");
    table.row(
        "CPU time of AX's JVMs (this one and any stage JVMs), ms",
        cpu.jvmMs() < 0 ? "not reported by this JVM" : String.valueOf(cpu.jvmMs()));
    table.row(
        "CPU time of the embedded database server during the run, ms",
        cpu.databaseMs() < 0
            ? "not measured (not a child process)"
            : String.valueOf(cpu.databaseMs()));
    table.row(
        "idle / stolen CPU time of the machine during the run, ms",
        machine.idleMs() < 0
            ? "not reported (no /proc/stat)"
            : machine.idleMs() + " / " + machine.stealMs());
  }

  public void print(PrintWriter out) {
    TextTable table = new TextTable(Column.left("metric").maxWidth(60), Column.left("value"));
    table.row("tasks", plan.tasks());
    table.row("completed", completed + " " + statuses);
    table.row("missing", missing());
    table.row("duplicate completion events", duplicateEvents);
    table.row(
        "duplicate RUNNING rows (ax_instance_log)",
        running.extra()
            + " ("
            + running.total()
            + " RUNNING rows for "
            + running.instances()
            + " instances)");
    table.row("early starts (started < due)", earlyStarts);
    table.row("early claims (claimed < due)", earlyClaims);
    table.row(
        "fire lateness, dispatched - due, ms: p50 / p99 / max",
        percentiles(fires.fireLateness(), 50, 99) + " / " + fires.fireLateness().getMaxValue());
    table.row(
        "last instance stored, ms after the first due time",
        fires.lastCreatedAtMs() - plan.firstDueAtMs());
    table.row(
        "lateness, claimed - due, ms: p50 / p90 / p99 / max",
        percentiles(lateness, 50, 90, 99) + " / " + lateness.getMaxValue());
    table.row(
        "start lateness, started - due, ms: p50 / p99 / max",
        percentiles(startLateness, 50, 99) + " / " + startLateness.getMaxValue());
    table.row(
        "throughput, first send to last completion",
        String.format(Locale.ROOT, "%.0f tasks/s (%.2f s)", overallPerSecond, overallSeconds));
    table.row(
        "ingest, first send to last instance stored",
        String.format(Locale.ROOT, "%.0f tasks/s", ingestPerSecond));
    table.row(
        "completions/s, first due to last completion",
        String.format(Locale.ROOT, "%.0f tasks/s", dueWindowPerSecond));
    addCostRows(table);
    out.println();
    table.print(out, "  ");
    long notSucceeded = completed - statuses.getOrDefault(InstanceStatus.SUCCESS, 0L);
    if (notSucceeded > 0) {
      out.println(
          "  note: "
              + notSucceeded
              + " task(s) did not succeed; see the dispatcher log (run with --verbose)");
    }
    long storedAfterDueMs = fires.lastCreatedAtMs() - plan.firstDueAtMs();
    if (storedAfterDueMs > 0) {
      out.println(
          "  note: ingest stored the last instance "
              + storedAfterDueMs
              + " ms after the first due time, so some lateness above is ingest's backlog, not"
              + " firing; give it time with a larger --due-in");
    }
    out.println();
    out.println(machineLine());
    out.flush();
  }

  /**
   * {@code BENCH tasks=.. p50=.. p99=.. max=.. dup=.. missing=..} and more keys after those; times
   * in ms, {@code dup} counts duplicate completion events, {@code dup_db} duplicate RUNNING rows.
   */
  public String machineLine() {
    return String.format(
        Locale.ROOT,
        "BENCH tasks=%d p50=%d p99=%d max=%d dup=%d missing=%d p90=%d dup_db=%d early=%d"
            + " early_claims=%d start_p50=%d start_p99=%d start_max=%d completed=%d"
            + " tput=%.0f due_tput=%.0f fire_p50=%d fire_p99=%d fire_max=%d"
            + " jit_ms=%d mark_mean_ms=%.1f claim_mean_ms=%.1f marks=%d claims=%d cpu_ms=%d"
            + " db_cpu_ms=%d idle_ms=%d steal_ms=%d ingest_tput=%.0f",
        plan.tasks(),
        lateness.getValueAtPercentile(50),
        lateness.getValueAtPercentile(99),
        lateness.getMaxValue(),
        duplicateEvents,
        missing(),
        lateness.getValueAtPercentile(90),
        running.extra(),
        earlyStarts,
        earlyClaims,
        startLateness.getValueAtPercentile(50),
        startLateness.getValueAtPercentile(99),
        startLateness.getMaxValue(),
        completed,
        overallPerSecond,
        dueWindowPerSecond,
        fires.fireLateness().getValueAtPercentile(50),
        fires.fireLateness().getValueAtPercentile(99),
        fires.fireLateness().getMaxValue(),
        jitMs,
        transactions.markMeanMs(),
        transactions.claimMeanMs(),
        transactions.marks(),
        transactions.claims(),
        cpu.jvmMs(),
        cpu.databaseMs(),
        machine.idleMs(),
        machine.stealMs(),
        ingestPerSecond);
  }

  private static String percentiles(Histogram histogram, double... percentiles) {
    StringBuilder text = new StringBuilder();
    for (double p : percentiles) {
      if (text.length() > 0) {
        text.append(" / ");
      }
      text.append(histogram.getValueAtPercentile(p));
    }
    return text.toString();
  }
}
