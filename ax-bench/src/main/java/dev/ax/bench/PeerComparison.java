package dev.ax.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * AX and its peer side by side, run by run and pooled over a series: start lateness (started minus
 * due, the one measure both report the same way), throughput from the first due time, CPU time and
 * the ratio AX / peer (below 1: AX was less late). Printed as tables and one machine-readable
 * {@code COMPARE ...} line. Not thread-safe: filled and printed by the bench's main thread.
 */
final class PeerComparison {

  /** One run of each, as the comparison keeps it. */
  record Pair(
      long axP50Ms,
      long axP99Ms,
      long axMaxMs,
      long peerP50Ms,
      long peerP99Ms,
      long peerMaxMs,
      long axStealMs,
      long peerStealMs) {}

  /** One side's figures: name, p50, p99, max, early, twice, missing, completions/s, CPU, steal. */
  private static final String ROW = "    %-14s %6d %6d %6d %6d %6d %8d %13.0f %9d %9d %7d%n";

  private final String peer;
  private final List<Pair> pairs = new ArrayList<>();
  private final Histogram axPooled = new Histogram(3);
  private final Histogram peerPooled = new Histogram(3);

  /**
   * @param peer what the peer is and how it is tuned, printed as its name
   */
  PeerComparison(String peer) {
    this.peer = peer;
  }

  /**
   * Adds a run of each and prints them side by side.
   *
   * @param peerDatabaseCpuMs CPU time of the embedded database during the peer's round (-1: not
   *     measured)
   * @param peerStealMs CPU time the hypervisor gave other guests during the peer's round
   */
  void add(
      BenchReport ax,
      long axStealMs,
      PeerResult other,
      long peerDatabaseCpuMs,
      long peerStealMs,
      PrintWriter out) {
    Histogram axLateness = ax.startLateness();
    axPooled.add(axLateness);
    peerPooled.add(other.lateness());
    Pair pair =
        new Pair(
            axLateness.getValueAtPercentile(50),
            axLateness.getValueAtPercentile(99),
            axLateness.getMaxValue(),
            other.lateness().getValueAtPercentile(50),
            other.lateness().getValueAtPercentile(99),
            other.lateness().getMaxValue(),
            axStealMs,
            peerStealMs);
    pairs.add(pair);
    out.println();
    out.println("  AX against " + peer + ", start lateness (started - due) in ms:");
    out.printf(
        Locale.ROOT,
        "    %-14s %6s %6s %6s %6s %6s %8s %13s %9s %9s %7s%n",
        "",
        "p50",
        "p99",
        "max",
        "early",
        "twice",
        "missing",
        "completions/s",
        "JVM CPU",
        "DB CPU",
        "steal");
    out.printf(
        Locale.ROOT,
        ROW,
        "AX",
        pair.axP50Ms(),
        pair.axP99Ms(),
        pair.axMaxMs(),
        ax.earlyStarts(),
        ax.duplicateEvents(),
        ax.missing(),
        ax.dueWindowPerSecond(),
        ax.cpu().jvmMs(),
        ax.cpu().databaseMs(),
        axStealMs);
    out.printf(
        Locale.ROOT,
        ROW,
        "db-scheduler",
        pair.peerP50Ms(),
        pair.peerP99Ms(),
        pair.peerMaxMs(),
        other.early(),
        other.duplicates(),
        other.missing(),
        other.dueWindowPerSecond(),
        other.cpuMs(),
        peerDatabaseCpuMs,
        peerStealMs);
    out.printf(
        Locale.ROOT,
        "    %-14s %6s %6s %6s%n",
        "AX / peer",
        ratio(pair.axP50Ms(), pair.peerP50Ms()),
        ratio(pair.axP99Ms(), pair.peerP99Ms()),
        ratio(pair.axMaxMs(), pair.peerMaxMs()));
    other.problems().forEach(p -> out.println("    note: the peer's round: " + p));
    out.flush();
  }

  int size() {
    return pairs.size();
  }

  /** Per-run p99s of both, the pooled percentiles, their ratios and the {@code COMPARE} line. */
  void print(PrintWriter out) {
    out.println();
    out.printf(
        Locale.ROOT,
        "AX against %s over %d runs each, start lateness in ms:%n",
        peer,
        pairs.size());
    out.println("  AX p99 per run:   " + joined(Pair::axP99Ms, " / "));
    out.println("  peer p99 per run: " + joined(Pair::peerP99Ms, " / "));
    out.printf(
        Locale.ROOT,
        "  pooled p50 / p99 / max: AX %d / %d / %d, peer %d / %d / %d; AX / peer %s / %s / %s%n",
        axPooled.getValueAtPercentile(50),
        axPooled.getValueAtPercentile(99),
        axPooled.getMaxValue(),
        peerPooled.getValueAtPercentile(50),
        peerPooled.getValueAtPercentile(99),
        peerPooled.getMaxValue(),
        ratio(axPooled.getValueAtPercentile(50), peerPooled.getValueAtPercentile(50)),
        ratio(axPooled.getValueAtPercentile(99), peerPooled.getValueAtPercentile(99)),
        ratio(axPooled.getMaxValue(), peerPooled.getMaxValue()));
    out.printf(
        Locale.ROOT,
        "  runs where AX's p99 was below the peer's: %d of %d%n",
        pairs.stream().filter(p -> p.axP99Ms() < p.peerP99Ms()).count(),
        pairs.size());
    out.println();
    out.printf(
        Locale.ROOT,
        "COMPARE runs=%d ax_p50=%d ax_p99=%d ax_max=%d peer_p50=%d peer_p99=%d peer_max=%d"
            + " ax_p99s=%s peer_p99s=%s ax_steal_ms=%s peer_steal_ms=%s%n",
        pairs.size(),
        axPooled.getValueAtPercentile(50),
        axPooled.getValueAtPercentile(99),
        axPooled.getMaxValue(),
        peerPooled.getValueAtPercentile(50),
        peerPooled.getValueAtPercentile(99),
        peerPooled.getMaxValue(),
        joined(Pair::axP99Ms, ","),
        joined(Pair::peerP99Ms, ","),
        joined(Pair::axStealMs, ","),
        joined(Pair::peerStealMs, ","));
    out.flush();
  }

  /** AX / peer to two decimals; "-" when the peer's figure is 0. */
  static String ratio(long axMs, long peerMs) {
    return peerMs == 0 ? "-" : String.format(Locale.ROOT, "%.2f", (double) axMs / peerMs);
  }

  private String joined(ToLongFunction<Pair> figure, String separator) {
    return pairs.stream()
        .map(p -> String.valueOf(figure.applyAsLong(p)))
        .collect(Collectors.joining(separator));
  }
}
