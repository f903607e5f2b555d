package dev.ax.dispatcher.claim;

import dev.ax.common.metrics.LatencyHistogram;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.store.StoredTask;
import dev.ax.dispatcher.executor.ExecutorRegistry;
import dev.ax.dispatcher.run.AttemptRunner;
import dev.ax.dispatcher.run.Bulkheads;
import dev.ax.dispatcher.store.ClaimedInstance;
import dev.ax.spi.TaskExecutor;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;

/**
 * Starts claimed instances: finds each one's task spec and executor and submits it to its pool's
 * {@link AttemptRunner}; a firing of a sharded task is fanned out into its shards instead ({@link
 * ShardFanOut}), and its shards run as any instance; an instance whose task or executor is missing
 * is failed at once, and the outcome recorder decides what that means for it. Records {@code
 * ax.dispatcher.lateness.ms} (claim time minus due time) for first attempts.
 *
 * <p>Thread-safety: called by the {@link ClaimLoop}'s thread; everything it uses is thread-safe.
 *
 * @param lateness where first attempts' claim lateness goes ({@link #of} registers it)
 */
public record RunStarter(
    TaskSpecs specs,
    Bulkheads bulkheads,
    ExecutorRegistry registry,
    DistributionSummary lateness,
    ShardFanOut shards) {

  /**
   * A starter whose lateness histogram is registered in {@code meters}.
   *
   * @param shards fans out the firings of sharded tasks instead of running them
   */
  public static RunStarter of(
      TaskSpecs specs,
      Bulkheads bulkheads,
      ExecutorRegistry registry,
      MeterRegistry meters,
      ShardFanOut shards) {
    return new RunStarter(specs, bulkheads, registry, lateness(meters), shards);
  }

  private static DistributionSummary lateness(MeterRegistry meters) {
    return LatencyHistogram.register(
        meters, "ax.dispatcher.lateness.ms", "claim lateness: claim time minus due time");
  }

  /**
   * @param poolOfInstance the pool each instance was admitted to; by default its task's group's
   * @param prefetch the read of these instances' specs started before the claim
   */
  void start(List<ClaimedInstance> won, Map<String, String> poolOfInstance, Future<?> prefetch) {
    for (ClaimedInstance instance : won) {
      if (instance.attempt() == 1) { // a later attempt is late by design (backoff, take-back)
        lateness.record(instance.claimedAtMs() - instance.dueAtMs());
      }
    }
    Map<String, StoredTask> specOfRun = specs.of(won, prefetch);
    List<Map.Entry<ClaimedInstance, StoredTask>> firingsToFanOut = new ArrayList<>();
    for (ClaimedInstance instance : won) {
      StoredTask task = specOfRun.get(TaskSpecs.keyOf(instance));
      if (task != null && task.spec().isSharded() && !instance.isShard()) {
        firingsToFanOut.add(Map.entry(instance, task));
        continue;
      }
      if (task == null) {
        bulkheads
            .runnerFor(bulkheads.poolFor(TaskSpec.DEFAULT_GROUP))
            .fail(instance, "unknown", "task " + instance.taskId() + " not found");
        continue;
      }
      AttemptRunner runner =
          bulkheads.runnerFor(
              poolOfInstance.getOrDefault(
                  instance.instanceId(), bulkheads.poolFor(task.spec().group())));
      Optional<TaskExecutor> executor = registry.find(task.spec().executor());
      if (executor.isEmpty()) {
        runner.fail(
            instance,
            task.spec().group(),
            "no executor installed for "
                + task.spec().executor().type()
                + (task.spec().executor() instanceof ExecutorSpec.InProcess inProcess
                        && inProcess.handler() != null
                    ? " handler '" + inProcess.handler() + "'"
                    : ""));
        continue;
      }
      runner.submit(instance, task, executor.get());
    }
    shards.fanOut(firingsToFanOut);
    specs.doneWith(specOfRun.values());
  }
}
