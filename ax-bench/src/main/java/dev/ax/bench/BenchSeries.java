package dev.ax.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * Several measured runs of {@code ax bench --runs <n>} in one JVM after one warm-up: each run's
 * lateness side by side, and how many runs stayed within a lateness target. One run says little on
 * a shared, noisy machine; a series of runs taken in minutes says how often a target holds, and the
 * claim lateness of all runs' tasks together gives the percentiles of the whole series. Not
 * thread-safe: filled and printed by the bench's main thread.
 */
public final class BenchSeries {

  /**
   * What one run contributed, in ms: claim lateness p50 / p99 / max, fire lateness p99, and the CPU
   * time the hypervisor gave other guests during the run (-1 when not known).
   */
  public record Run(long p50Ms, long p99Ms, long maxMs, long fireP99Ms, long stealMs) {}

  private final List<Run> runs = new ArrayList<>();
  private final Histogram pooled = new Histogram(3);

  /**
   * Adds one run.
   *
   * @param lateness the claim lateness of every task of the run, in ms (copied, not kept)
   */
  public void add(Run run, Histogram lateness) {
    runs.add(run);
    pooled.add(lateness);
  }

  /** The claim lateness of every task of every run, in ms. */
  public Histogram pooled() {
    return pooled.copy();
  }

  public int size() {
    return runs.size();
  }

  /** How many runs had a claim lateness p99 under {@code p99Ms} and a max under {@code maxMs}. */
  public int within(long p99Ms, long maxMs) {
    return (int) runs.stream().filter(r -> r.p99Ms() < p99Ms && r.maxMs() < maxMs).count();
  }

  /** The median over the runs of one figure (the lower middle one for an even count). */
  public long median(ToLongFunction<Run> figure) {
    if (runs.isEmpty()) {
      throw new IllegalStateException("no runs");
    }
    long[] values = runs.stream().mapToLong(figure).sorted().toArray();
    return values[(values.length - 1) / 2];
  }

  /**
   * Prints one line per figure with every run's value, the medians, the count within {@code p99Ms}
   * / {@code maxMs}, and a machine-readable {@code SERIES ...} line.
   */
  public void print(PrintWriter out, long p99Ms, long maxMs) {
    out.println();
    out.printf(Locale.ROOT, "Series of %d measured runs (claim lateness, ms):%n", runs.size());
    out.println(line("p50", Run::p50Ms));
    out.println(line("p99", Run::p99Ms));
    out.println(line("max", Run::maxMs));
    out.println(line("fire p99", Run::fireP99Ms));
    out.println(line("steal", Run::stealMs));
    out.printf(
        Locale.ROOT,
        "  all %d runs' %d tasks together: p50 %d / p99 %d / max %d%n",
        runs.size(),
        pooled.getTotalCount(),
        pooled.getValueAtPercentile(50),
        pooled.getValueAtPercentile(99),
        pooled.getMaxValue());
    out.printf(
        Locale.ROOT,
        "  %d of %d runs with p99 under %d ms and max under %d ms%n",
        within(p99Ms, maxMs),
        runs.size(),
        p99Ms,
        maxMs);
    out.println();
    out.printf(
        Locale.ROOT,
        "SERIES runs=%d within=%d pooled_p50=%d pooled_p99=%d pooled_max=%d p99=%s max=%s p50=%s"
            + " fire_p99=%s steal_ms=%s%n",
        runs.size(),
        within(p99Ms, maxMs),
        pooled.getValueAtPercentile(50),
        pooled.getValueAtPercentile(99),
        pooled.getMaxValue(),
        csv(Run::p99Ms),
        csv(Run::maxMs),
        csv(Run::p50Ms),
        csv(Run::fireP99Ms),
        csv(Run::stealMs));
    out.flush();
  }

  private String line(String name, ToLongFunction<Run> figure) {
    return String.format(
        Locale.ROOT, "  %-9s %s   median %d", name, joined(figure, " / "), median(figure));
  }

  private String csv(ToLongFunction<Run> figure) {
    return joined(figure, ",");
  }

  private String joined(ToLongFunction<Run> figure, String separator) {
    return runs.stream()
        .map(r -> String.valueOf(figure.applyAsLong(r)))
        .collect(Collectors.joining(separator));
  }
}
