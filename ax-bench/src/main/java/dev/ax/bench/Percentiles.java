package dev.ax.bench;

import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The three figures every lateness report gives, in ms: p50, p99 and max. Immutable.
 *
 * @param p50Ms the median
 * @param p99Ms the 99th percentile
 * @param maxMs the largest value recorded
 */
record Percentiles(long p50Ms, long p99Ms, long maxMs) {

  static Percentiles of(Histogram lateness) {
    return new Percentiles(
        lateness.getValueAtPercentile(50),
        lateness.getValueAtPercentile(99),
        lateness.getMaxValue());
  }

  /** Each of this side's figures over {@code peer}'s, as {@code "0.12 / 0.34 / 0.56"}. */
  String ratiosTo(Percentiles peer) {
    return String.join(
        " / ", ratio(p50Ms, peer.p50Ms), ratio(p99Ms, peer.p99Ms), ratio(maxMs, peer.maxMs));
  }

  /** AX / peer to two decimals; "-" when the peer's figure is 0. */
  static String ratio(long axMs, long peerMs) {
    return peerMs == 0 ? "-" : String.format(Locale.ROOT, "%.2f", (double) axMs / peerMs);
  }

  @Override
  public String toString() {
    return p50Ms + " / " + p99Ms + " / " + maxMs;
  }
}
