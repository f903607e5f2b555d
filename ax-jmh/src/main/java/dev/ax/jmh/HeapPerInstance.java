package dev.ax.jmh;

import dev.ax.common.wheel.TimingWheel;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Supplier;

/**
 * Retained heap per pending instance at 1,000,000 pending, for the wheel and the queue baselines.
 *
 * <p>For each structure, several rounds of: full GC until the used heap settles, read it, fill the
 * structure with the benchmark's workload, full GC again, read it; the difference over the count is
 * one sample, and the median is reported. Run it with a fixed heap and the parallel collector,
 * whose {@code System.gc()} is one full compacting collection:
 *
 * <pre>
 * java -Xms2g -Xmx2g -XX:+UseParallelGC -cp ax-jmh/target/ax-jmh.jar dev.ax.jmh.HeapPerInstance
 * </pre>
 *
 * Not the serial collector: on JDK 17 its used-heap figure after {@code System.gc()} still counts
 * the previous round's structure, so every sample after the first reads about zero. G1 works.
 *
 * <p>Optional arguments: the pending count (default 1,000,000) and the rounds (default 5).
 */
public final class HeapPerInstance {

  private static final long SEED = 7;
  private static final int SETTLE_GCS_MAX = 10;

  private HeapPerInstance() {}

  private record Result(String structure, double medianBytes, double minBytes, double maxBytes) {}

  public static void main(String[] args) {
    int pending = args.length > 0 ? Integer.parseInt(args[0]) : Workload.PENDING;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    if (collectors().contains("MarkSweepCompact")) {
      System.err.println("Run with -XX:+UseParallelGC (or G1), not the serial collector.");
      System.exit(2);
    }
    long[] dueAtMs = dueTimes(pending);
    System.out.printf(
        Locale.ROOT,
        "Retained heap per pending instance, %,d pending, median of %d rounds (%s, max heap %d MB)%n",
        pending,
        rounds,
        collectors(),
        Runtime.getRuntime().maxMemory() >> 20);

    List<Result> results = new ArrayList<>();
    long[] wheelEstimate = {0};
    results.add(
        measure(
            "TimingWheel, maxPending = pending (ids + due + group + index)",
            rounds,
            pending,
            () -> {
              TimingWheel wheel = new TimingWheel(pending, Workload.START_MS);
              fillWheel(wheel, dueAtMs);
              wheelEstimate[0] = wheel.estimatedHeapBytes();
              return wheel;
            }));
    results.add(
        measure(
            "TimingWheel, maxPending = 4 x pending (grown by doubling)",
            rounds,
            pending,
            () -> {
              TimingWheel wheel = new TimingWheel(4 * pending, Workload.START_MS);
              fillWheel(wheel, dueAtMs);
              return wheel;
            }));
    results.add(
        measure(
            "DelayQueue<Delayed> (no duplicate detection)",
            rounds,
            pending,
            () -> offerAll(new DelayQueue<>(), dueAtMs, DelayedInstance::new)));
    results.add(
        measure(
            "DelayQueue<Delayed> + HashSet<Long> duplicate index",
            rounds,
            pending,
            () -> {
              Set<Long> ids = new HashSet<>();
              for (int i = 0; i < pending; i++) {
                ids.add((long) i);
              }
              return new Object[] {
                offerAll(new DelayQueue<>(), dueAtMs, DelayedInstance::new), ids
              };
            }));
    results.add(
        measure(
            "PriorityQueue<Delayed> (no duplicate detection)",
            rounds,
            pending,
            () -> offerAll(new PriorityQueue<>(), dueAtMs, DelayedInstance::new)));
    results.add(
        measure(
            "ScheduledThreadPoolExecutor queue (no duplicate detection)",
            rounds,
            pending,
            // A fresh executor each round; it starts no thread, and only its queue is kept.
            () ->
                offerAll(
                    new ScheduledThreadPoolExecutor(1).getQueue(),
                    dueAtMs,
                    ScheduledInstance::new)));

    printResults(results, pending, wheelEstimate[0]);
  }

  /**
   * The table of retained bytes per instance, and the wheel's own estimate of its heap ({@code
   * wheelEstimateBytes}) at {@code pending} instances.
   */
  private static void printResults(List<Result> results, int pending, long wheelEstimateBytes) {
    System.out.printf(
        Locale.ROOT, "%-62s %10s %10s %10s%n", "structure", "median B", "min B", "max B");
    for (Result result : results) {
      System.out.printf(
          Locale.ROOT,
          "%-62s %10.1f %10.1f %10.1f%n",
          result.structure(),
          result.medianBytes(),
          result.minBytes(),
          result.maxBytes());
    }
    System.out.printf(
        Locale.ROOT,
        "TimingWheel.estimatedHeapBytes() at %,d pending: %.1f B per instance, %.1f MB in all%n%n",
        pending,
        (double) wheelEstimateBytes / pending,
        wheelEstimateBytes / 1048576.0);
  }

  private static Result measure(String structure, int rounds, int pending, Supplier<?> fill) {
    double[] samples = new double[rounds];
    for (int round = 0; round < rounds; round++) {
      samples[round] = sampleBytesPerInstance(fill, pending);
    }
    Arrays.sort(samples);
    return new Result(structure, samples[rounds / 2], samples[0], samples[rounds - 1]);
  }

  /**
   * One sample, in its own frame: when it returns, the structure is unreachable. (Kept in a local
   * of the caller's loop, the previous round's structure would still be alive while the next round
   * reads its baseline, and the difference would be near zero.)
   */
  private static double sampleBytesPerInstance(Supplier<?> fill, int pending) {
    long beforeBytes = settledUsedBytes();
    Object filled = fill.get();
    long afterBytes = settledUsedBytes();
    Reference.reachabilityFence(filled);
    return (double) (afterBytes - beforeBytes) / pending;
  }

  /** Full collections until the used heap stops shrinking, then the used heap. */
  private static long settledUsedBytes() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < SETTLE_GCS_MAX; i++) {
      memory.gc();
      long now = memory.getHeapMemoryUsage().getUsed();
      if (now >= used) {
        return now;
      }
      used = now;
    }
    return used;
  }

  private static void fillWheel(TimingWheel wheel, long[] dueAtMs) {
    for (int i = 0; i < dueAtMs.length; i++) {
      wheel.add(i, Workload.groupOf(i), dueAtMs[i]);
    }
  }

  /** {@code queue} with one element per due time, instance {@code i} due at {@code dueAtMs[i]}. */
  private static <E extends PendingInstance, Q extends Queue<? super E>> Q offerAll(
      Q queue, long[] dueAtMs, PendingInstance.Factory<E> element) {
    for (int i = 0; i < dueAtMs.length; i++) {
      queue.offer(element.create(i, Workload.groupOf(i), dueAtMs[i]));
    }
    return queue;
  }

  private static long[] dueTimes(int pending) {
    long[] delays = Workload.initialDelaysMs(pending, SEED);
    for (int i = 0; i < pending; i++) {
      delays[i] += Workload.START_MS;
    }
    return delays;
  }

  private static String collectors() {
    StringBuilder names = new StringBuilder();
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      names.append(names.length() == 0 ? "" : " + ").append(collector.getName());
    }
    return names.toString();
  }
}
