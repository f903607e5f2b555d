package dev.ax.bench;

import dev.ax.bench.peer.PeerOutcome;
import java.util.List;

/**
 * What a side-by-side comparison reads of one measured round, AX's ({@link BenchReport#figures}) or
 * the peer's ({@link #of(PeerOutcome)}), so that both sides are printed and judged by the same
 * code. Immutable.
 *
 * @param earlyStarts tasks started before their due time
 * @param startedTwice tasks started more than once
 * @param missing tasks never started
 * @param dueWindowPerSecond completions per second from the first due time to the last completion
 * @param jvmCpuMs CPU time of the JVM that ran the round
 */
record RoundFigures(
    long earlyStarts, long startedTwice, long missing, double dueWindowPerSecond, long jvmCpuMs) {

  /** The peer's round, as its JVM reported it. */
  static RoundFigures of(PeerOutcome peer) {
    return new RoundFigures(
        peer.early(),
        peer.duplicates(),
        (long) peer.tasks() - peer.completed(),
        peer.dueWindowPerSecond(),
        peer.cpuMs());
  }

  /** What the same counts would make an AX run fail for; empty when there is none. */
  List<String> problems() {
    return new Problems()
        .count(missing, "task(s) never started")
        .count(startedTwice, "task(s) started twice")
        .count(earlyStarts, "task(s) started before they were due")
        .list();
  }
}
