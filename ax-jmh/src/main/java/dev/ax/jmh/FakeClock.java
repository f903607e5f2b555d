package dev.ax.jmh;

/**
 * The benchmark's time for the queue baselines: their elements' {@code getDelay} reads it, so a
 * {@code DelayQueue} expires on the same numbers as the wheel's {@code advanceTo} and no benchmark
 * waits. Static to keep the elements as small as they would be in real use (no clock field); the
 * benchmarks are single-threaded.
 */
final class FakeClock {

  static long nowMs;

  private FakeClock() {}
}
