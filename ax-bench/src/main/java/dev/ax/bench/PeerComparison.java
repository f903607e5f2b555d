package dev.ax.bench;

import dev.ax.bench.peer.PeerOutcome;
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
  record Pair(Percentiles ax, Percentiles peer, long axStealMs, long peerStealMs) {}

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
      PeerOutcome other,
      long peerDatabaseCpuMs,
      long peerStealMs,
      PrintWriter out) {
    Histogram axLateness = ax.startLateness();
    axPooled.add(axLateness);
    peerPooled.add(other.lateness());
    Pair pair =
        new Pair(
            Percentiles.of(axLateness), Percentiles.of(other.lateness()), axStealMs, peerStealMs);
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
    RoundFigures peerRound = RoundFigures.of(other);
    row(out, "AX", pair.ax(), ax.figures(), ax.cpu().databaseMs(), axStealMs);
    row(out, "db-scheduler", pair.peer(), peerRound, peerDatabaseCpuMs, peerStealMs);
    out.printf(
        Locale.ROOT,
        "    %-14s %6s %6s %6s%n",
        "AX / peer",
        Percentiles.ratio(pair.ax().p50Ms(), pair.peer().p50Ms()),
        Percentiles.ratio(pair.ax().p99Ms(), pair.peer().p99Ms()),
        Percentiles.ratio(pair.ax().maxMs(), pair.peer().maxMs()));
    peerRound.problems().forEach(p -> out.println("    note: the peer's round: " + p));
    out.flush();
  }

  /** One side's row of a run's table. */
  private static void row(
      PrintWriter out,
      String name,
      Percentiles lateness,
      RoundFigures round,
      long databaseCpuMs,
      long stealMs) {
    out.printf(
        Locale.ROOT,
        ROW,
        name,
        lateness.p50Ms(),
        lateness.p99Ms(),
        lateness.maxMs(),
        round.earlyStarts(),
        round.startedTwice(),
        round.missing(),
        round.dueWindowPerSecond(),
        round.jvmCpuMs(),
        databaseCpuMs,
        stealMs);
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
    out.println("  AX p99 per run:   " + joined(p -> p.ax().p99Ms(), " / "));
    out.println("  peer p99 per run: " + joined(p -> p.peer().p99Ms(), " / "));
    Percentiles ax = Percentiles.of(axPooled);
    Percentiles other = Percentiles.of(peerPooled);
    out.println(
        "  pooled p50 / p99 / max: AX "
            + ax
            + ", peer "
            + other
            + "; AX / peer "
            + ax.ratiosTo(other));
    out.printf(
        Locale.ROOT,
        "  runs where AX's p99 was below the peer's: %d of %d%n",
        pairs.stream().filter(p -> p.ax().p99Ms() < p.peer().p99Ms()).count(),
        pairs.size());
    out.println();
    out.printf(
        Locale.ROOT,
        "COMPARE runs=%d ax_p50=%d ax_p99=%d ax_max=%d peer_p50=%d peer_p99=%d peer_max=%d"
            + " ax_p99s=%s peer_p99s=%s ax_steal_ms=%s peer_steal_ms=%s%n",
        pairs.size(),
        ax.p50Ms(),
        ax.p99Ms(),
        ax.maxMs(),
        other.p50Ms(),
        other.p99Ms(),
        other.maxMs(),
        joined(p -> p.ax().p99Ms(), ","),
        joined(p -> p.peer().p99Ms(), ","),
        joined(Pair::axStealMs, ","),
        joined(Pair::peerStealMs, ","));
    out.flush();
  }

  private String joined(ToLongFunction<Pair> figure, String separator) {
    return pairs.stream()
        .map(p -> String.valueOf(figure.applyAsLong(p)))
        .collect(Collectors.joining(separator));
  }
}
