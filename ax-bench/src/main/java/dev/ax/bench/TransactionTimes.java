package dev.ax.bench;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/**
 * The two transactions on a due instance's way to its run, as the stages' timers count them: the
 * ticker's mark ({@code ax.ticker.mark}) and the dispatcher's claim ({@code ax.dispatcher.claim}).
 * Taken before and after a measured run, the difference says whether the database was slow in that
 * run, which lateness alone cannot. Immutable.
 *
 * @param marks ticker marks so far
 * @param markTotalMs their summed duration
 * @param claims dispatcher claims so far
 * @param claimTotalMs their summed duration
 */
public record TransactionTimes(long marks, double markTotalMs, long claims, double claimTotalMs) {

  /** What {@code meters} has counted so far; zero for a timer not registered (yet). */
  public static TransactionTimes snapshot(MeterRegistry meters) {
    Timer mark = meters.find("ax.ticker.mark").timer();
    Timer claim = meters.find("ax.dispatcher.claim").timer();
    return new TransactionTimes(
        mark == null ? 0 : mark.count(),
        mark == null ? 0 : mark.totalTime(TimeUnit.MILLISECONDS),
        claim == null ? 0 : claim.count(),
        claim == null ? 0 : claim.totalTime(TimeUnit.MILLISECONDS));
  }

  /** The transactions counted between {@code before} and this snapshot. */
  public TransactionTimes since(TransactionTimes before) {
    return new TransactionTimes(
        marks - before.marks,
        markTotalMs - before.markTotalMs,
        claims - before.claims,
        claimTotalMs - before.claimTotalMs);
  }

  /** Mean duration of a mark in ms, 0 when there was none. */
  public double markMeanMs() {
    return marks == 0 ? 0 : markTotalMs / marks;
  }

  /** Mean duration of a claim in ms, 0 when there was none. */
  public double claimMeanMs() {
    return claims == 0 ? 0 : claimTotalMs / claims;
  }
}
