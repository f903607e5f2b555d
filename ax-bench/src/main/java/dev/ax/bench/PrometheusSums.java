package dev.ax.bench;

/**
 * Sums of samples in Prometheus text format, as the stages' {@code /metrics} serve it: how the
 * bench reads the transaction timers of stages in other JVMs. Stateless.
 */
final class PrometheusSums {

  private PrometheusSums() {}

  /**
   * The sum of every sample of {@code metric} in {@code text}, whatever its labels; 0 if there is
   * none. Comment lines, other metrics (including ones {@code metric} is a prefix of) and samples
   * whose value is not a number are skipped.
   */
  static double sum(String text, String metric) {
    return sumWhere(text, metric, "");
  }

  /**
   * As {@link #sum}, over the samples whose labels contain {@code label} (e.g. {@code
   * kind="instances"}); an empty {@code label} takes every sample.
   */
  static double sumWhere(String text, String metric, String label) {
    double total = 0;
    for (String line : text.split("\n")) {
      if (!line.startsWith(metric)) {
        continue;
      }
      String rest = line.substring(metric.length());
      if (!rest.startsWith(" ") && !rest.startsWith("{")) {
        continue; // another metric whose name starts with this one
      }
      if (rest.startsWith("{")) {
        int end = rest.lastIndexOf('}');
        if (end < 0) {
          continue;
        }
        if (!rest.substring(0, end).contains(label)) {
          continue;
        }
        rest = rest.substring(end + 1);
      } else if (!label.isEmpty()) {
        continue;
      }
      String[] fields = rest.trim().split("\\s+");
      try {
        double value = Double.parseDouble(fields[0]);
        if (Double.isFinite(value)) {
          total += value;
        }
      } catch (NumberFormatException e) {
        // not a sample of a number: skipped
      }
    }
    return total;
  }

  /** The ticker's marks and the dispatchers' claims in {@code text} (their summary timers). */
  static TransactionTimes transactionTimes(String text) {
    return new TransactionTimes(
        (long) sum(text, "ax_ticker_mark_seconds_count"),
        sum(text, "ax_ticker_mark_seconds_sum") * 1000,
        (long) sum(text, "ax_dispatcher_claim_seconds_count"),
        sum(text, "ax_dispatcher_claim_seconds_sum") * 1000);
  }
}
