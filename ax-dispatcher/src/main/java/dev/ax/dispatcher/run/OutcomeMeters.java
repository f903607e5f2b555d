package dev.ax.dispatcher.run;

import dev.ax.common.metrics.LatencyHistogram;
import dev.ax.common.model.Namespace;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.AfterFailure;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dispatcher's meters of recorded outcomes: counts by status and follow-up, run durations and
 * starts by executor type, and first attempts' start lateness. An outcome counts once it is
 * recorded, never when it was taken back (that has its own counter).
 *
 * <p>Thread-safety: thread-safe (Micrometer meters, a concurrent map of the per-executor ones).
 */
final class OutcomeMeters {

  /** The meters of one executor type (HTTP, SHELL, IN_PROCESS, or none): a handful at most. */
  private record ExecutorMeters(DistributionSummary runDurations, Counter started) {}

  /**
   * The outcome counts of one task group, labelled with the group and its namespace: at most {@link
   * #MAX_GROUP_SERIES} groups, the later ones counted together as {@link #OTHER_GROUPS}, so
   * producers inventing groups cannot grow the series.
   */
  private record GroupMeters(
      Counter succeeded,
      Counter failed,
      Counter timedOut,
      Counter dead,
      DistributionSummary runDurations) {}

  /** Groups with outcome series of their own, per dispatcher. */
  static final int MAX_GROUP_SERIES = 100;

  /** The label of the groups beyond {@link #MAX_GROUP_SERIES}. */
  static final String OTHER_GROUPS = "__other";

  private final MeterRegistry meters;
  private final Map<String, ExecutorMeters> byExecutor = new ConcurrentHashMap<>();
  private final Map<String, GroupMeters> byGroup = new ConcurrentHashMap<>();
  private final DistributionSummary startLateness;
  private final DistributionSummary downstreamStartLateness;
  private final Counter takenBack;
  private final Counter parked;
  private final Counter leftAtStop;
  private final Counter retried;

  OutcomeMeters(MeterRegistry meters) {
    this.meters = meters;
    this.startLateness =
        LatencyHistogram.register(
            meters,
            "ax.dispatcher.start.lateness.ms",
            "end to end: a first attempt's start minus its due time (recorded with its outcome)");
    this.downstreamStartLateness =
        LatencyHistogram.register(
            meters,
            "ax.dispatcher.downstream.start.lateness.ms",
            "upstream success to downstream start: a DEPENDENCY task's first attempt's start minus"
                + " the success of the upstream that completed its join");
    this.takenBack = meters.counter("ax.dispatcher.outcome.taken.back");
    this.parked =
        Counter.builder("ax.dispatcher.outcome.parked")
            .description(
                "outcomes that could not be recorded even alone, not from an outage: logged at"
                    + " ERROR and passed over; their runs are taken back when their lease ends")
            .register(meters);
    this.leftAtStop =
        Counter.builder("ax.dispatcher.outcome.unrecorded.at.stop")
            .description(
                "outcomes still unrecorded when the dispatcher stopped (the database did not"
                    + " answer); their runs are taken back when their lease ends")
            .register(meters);
    this.retried = meters.counter("ax.dispatcher.retried");
    groupMeters(TaskSpec.DEFAULT_GROUP); // the default group's series exist from the start
  }

  /** An outcome whose row no longer matched: not recorded. */
  void takenBack() {
    takenBack.increment();
  }

  /** An outcome that failed to record alone, not from an outage: passed over. */
  void parked() {
    parked.increment();
  }

  /** Outcomes left unrecorded when the recorder stopped. */
  void leftAtStop(int outcomes) {
    leftAtStop.increment(outcomes);
  }

  /** An outcome recorded with {@code after}: counted and timed. */
  void recorded(Completion c, AfterFailure after) {
    GroupMeters group = groupMeters(c.group() == null ? OTHER_GROUPS : c.group());
    switch (c.status()) {
      case SUCCESS -> group.succeeded().increment();
      case TIMEOUT -> group.timedOut().increment();
      default -> group.failed().increment();
    }
    if (after instanceof AfterFailure.Retry) {
      retried.increment();
    } else if (after instanceof AfterFailure.Dead) {
      group.dead().increment();
    }
    group.runDurations().record(Math.max(0, c.finishedAtMs() - c.startedAtMs()));
    time(c);
  }

  private GroupMeters groupMeters(String group) {
    String key =
        byGroup.containsKey(group) || byGroup.size() < MAX_GROUP_SERIES ? group : OTHER_GROUPS;
    return byGroup.computeIfAbsent(
        key,
        g -> {
          Tags tags =
              Tags.of(
                  "group",
                  g,
                  "namespace",
                  g.equals(OTHER_GROUPS) ? OTHER_GROUPS : Namespace.of(g).name());
          return new GroupMeters(
              meters.counter("ax.dispatcher.succeeded", tags),
              meters.counter("ax.dispatcher.failed", tags),
              meters.counter("ax.dispatcher.timeout", tags),
              meters.counter("ax.dispatcher.dead", tags),
              // Count, sum and max only (no buckets): three series per group, for a mean and a
              // worst run per group; the executor-type histogram has the percentiles.
              DistributionSummary.builder("ax.dispatcher.group.run.duration.ms")
                  .description("how long attempts ran, by task group: count, sum and max")
                  .tags(tags)
                  .register(meters));
        });
  }

  /** The attempt's run duration by executor type, and a first attempt's start lateness. */
  private void time(Completion c) {
    String type = c.context() == null ? "none" : c.context().task().executor().type().name();
    ExecutorMeters executor = byExecutor.computeIfAbsent(type, this::executorMeters);
    executor.runDurations().record(Math.max(0, c.finishedAtMs() - c.startedAtMs()));
    executor.started().increment();
    if (c.claimed().attempt() == 1) {
      long latenessMs = Math.max(0, c.startedAtMs() - c.claimed().dueAtMs());
      startLateness.record(latenessMs);
      if (c.context() != null && c.context().task().trigger() instanceof Trigger.Dependency) {
        // A dependency instance is due when the upstream that completed its join succeeded.
        downstreamStartLateness.record(latenessMs);
      }
    }
  }

  private ExecutorMeters executorMeters(String type) {
    return new ExecutorMeters(
        LatencyHistogram.builder(
                "ax.dispatcher.run.duration.ms", "how long attempts ran, by executor type")
            .tag("executor", type)
            .register(meters),
        Counter.builder("ax.dispatcher.started")
            .description("attempts started, counted with their outcome, by executor type")
            .tag("executor", type)
            .register(meters));
  }
}
