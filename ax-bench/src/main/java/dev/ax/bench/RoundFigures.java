package dev.ax.bench;

/**
 * What a side-by-side comparison reads of one measured round, AX's ({@link BenchReport}) or the
 * peer's ({@link PeerResult}), so that both sides are printed and judged by the same code.
 */
interface RoundFigures {

  /** Tasks started before their due time. */
  long earlyStarts();

  /** Tasks started more than once. */
  long startedTwice();

  /** Tasks never started. */
  long missing();

  /** Completions per second from the first due time to the last completion. */
  double dueWindowPerSecond();

  /** CPU time of the JVM that ran the round, in ms. */
  long jvmCpuMs();
}
