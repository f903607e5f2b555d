package dev.ax.bench;

import java.time.Duration;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The picocli mixin of {@code ax bench --history}: how many finished tasks age the database before
 * the warm-up, and what share of them is past the retention cutoff; it checks them and makes the
 * {@link BenchHistory}. Set by picocli and then read by the command, both on the main thread.
 */
final class HistoryOptions extends BenchMixin {

  @Option(
      names = "--history",
      defaultValue = "0",
      paramLabel = "<rows>",
      description =
          "Before the warm-up, load this many finished one-shot tasks (each an ENDED task, its"
              + " SUCCESS instance and its 4 audit rows) finished over the last AX_RETENTION, by"
              + " multi-row INSERTs over "
              + BenchCommand.HISTORY_CONNECTIONS
              + " connections; then report table sizes before and after the measured runs"
              + " (default: ${DEFAULT-VALUE}: none; at most 200000000).")
  private long historyRows;

  @Option(
      names = "--history-expired",
      defaultValue = "10",
      paramLabel = "<percent>",
      description =
          "Of the --history rows, this share finished up to an hour before AX_RETENTION's"
              + " cutoff, so retention has rows to delete while the runs go on and its rate is"
              + " measured (default: ${DEFAULT-VALUE}; 0..100).")
  private int historyExpiredPercent;

  /**
   * @throws ParameterException for a setting out of range
   */
  void check() {
    if (historyRows < 0 || historyRows > BenchHistory.MAX_ROWS) {
      throw usage("--history must be in 0.." + BenchHistory.MAX_ROWS + " rows: " + historyRows);
    }
    requireInRange("--history-expired", historyExpiredPercent, 0, 100);
  }

  /** The history asked for (none: zero rows), spread over {@code retention}. */
  BenchHistory history(Duration retention) {
    return new BenchHistory(historyRows, historyExpiredPercent, retention);
  }
}
