package dev.ax.bench;

import dev.ax.bench.peer.PeerOutcome;
import dev.ax.cli.local.StopSignal;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The measured runs of {@code ax bench} after its warm-up: {@code runs} runs of {@code tasks} ONCE
 * tasks each, every one with its own task ids and report, its lateness added to the series, its
 * problems to the bench's; with {@code --peer}, each run's workload then goes through the peer and
 * the two are compared. A stop signal ends the series after the run under way.
 *
 * <p>Not thread-safe: the bench's main thread.
 */
final class MeasuredRuns {

  private final String runId;
  private final int runs;
  private final int tasks;
  private final Duration dueIn;
  private final Duration spread;
  private String lastPrefix;

  /**
   * @param runId the bench's run id; with more than one run, each run's is this and its number
   * @param dueIn how long after a run's start its first task is due
   * @param spread the window a run's due times are spread over
   */
  MeasuredRuns(String runId, int runs, int tasks, Duration dueIn, Duration spread) {
    this.runId = runId;
    this.runs = runs;
    this.tasks = tasks;
    this.dueIn = dueIn;
    this.spread = spread;
  }

  /**
   * Runs the series, printing each run's report, and the comparison with the peer at the end.
   *
   * @param peerProcess the peer each run is repeated on, or null
   * @param comparison the comparison with the peer, null exactly when {@code peerProcess} is
   * @param problems gets each run's problems, prefixed with the run's number when there are several
   */
  void run(
      BenchDriver driver,
      StopSignal stop,
      PeerProcess peerProcess,
      PeerComparison comparison,
      BenchSeries series,
      List<String> problems,
      PrintWriter out)
      throws Exception {
    for (int run = 1; run <= runs && !stop.isRaised(); run++) {
      if (runs > 1) {
        out.printf(Locale.ROOT, "%nMeasured run %d of %d%n", run, runs);
      }
      BenchPlan plan =
          new BenchPlan(
              runs == 1 ? runId : runId + "r" + run,
              tasks,
              driver.context().clock().millis(),
              dueIn,
              spread);
      BenchReport report = driver.measure(plan);
      lastPrefix = plan.instanceIdPrefix();
      report.print(out);
      series.add(report.seriesRun(), report.lateness());
      String label = runs == 1 ? "" : "run " + run + ": ";
      report.problems().forEach(p -> problems.add(label + p));
      if (peerProcess != null && !stop.isRaised()) {
        CpuTime cpu = CpuTime.start();
        MachineCpu machine = MachineCpu.start();
        PeerOutcome result = peerProcess.run(plan.runId() + "-peer");
        comparison.add(
            report,
            report.seriesRun().stealMs(),
            result,
            cpu.used().databaseMs(),
            machine.used().stealMs(),
            out);
      }
    }
    if (comparison != null && comparison.size() > 0) {
      comparison.print(out);
    }
  }

  /** The instance id prefix of the last run that ran, or null when none did. */
  String lastPrefix() {
    return lastPrefix;
  }
}
