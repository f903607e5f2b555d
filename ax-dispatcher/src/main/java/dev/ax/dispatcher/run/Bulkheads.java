package dev.ax.dispatcher.run;

import dev.ax.common.store.InstanceStore;
import dev.ax.common.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * One bounded {@link AttemptRunner} per task group, so a group of slow tasks fills only its own
 * pool and cannot starve the others. Pool sizes come from {@code AX_DISPATCHER_GROUP_THREADS}
 * ({@code group=threads,...}), other groups get the default size; every pool has the same queue
 * bound. Retries run in a group of their own ({@link #RETRY_GROUP}). Pools are created on first
 * use. Thread-safe.
 */
public final class Bulkheads {

  /** The group retried attempts run in, whatever their task's group. */
  public static final String RETRY_GROUP = "__retry";

  private final Clock clock;
  private final Map<String, Integer> threadsByGroup;
  private final int defaultThreads;
  private final int queuePerGroup;
  private final Consumer<Completion> sink;
  private final ConcurrentHashMap<String, AttemptRunner> runners = new ConcurrentHashMap<>();

  public Bulkheads(
      Clock clock,
      Map<String, Integer> threadsByGroup,
      int defaultThreads,
      int queuePerGroup,
      Consumer<Completion> sink) {
    this.clock = clock;
    this.threadsByGroup = Map.copyOf(threadsByGroup);
    this.defaultThreads = defaultThreads;
    this.queuePerGroup = queuePerGroup;
    this.sink = sink;
  }

  public AttemptRunner runnerFor(String group) {
    return runners.computeIfAbsent(
        group,
        g ->
            new AttemptRunner(
                clock, threadsByGroup.getOrDefault(g, defaultThreads), queuePerGroup, sink));
  }

  public int freeCapacity(String group) {
    return runnerFor(group).freeCapacity();
  }

  /** Every attempt in progress in any group (for lease renewal). */
  public Set<InstanceStore.RunKey> running() {
    Set<InstanceStore.RunKey> all = new HashSet<>();
    runners.values().forEach(r -> all.addAll(r.running()));
    return all;
  }

  /** Lets running attempts finish within {@code grace} (shared by all groups), then stops. */
  public void shutdown(Duration grace) {
    long deadlineNanos = System.nanoTime() + grace.toNanos();
    for (AttemptRunner runner : runners.values()) {
      long leftNanos = Math.max(0, deadlineNanos - System.nanoTime());
      runner.shutdown(Duration.ofNanos(leftNanos));
    }
  }
}
