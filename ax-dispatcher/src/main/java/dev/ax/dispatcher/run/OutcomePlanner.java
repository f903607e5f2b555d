package dev.ax.dispatcher.run;

import dev.ax.common.store.AfterFailure;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.Outcome;
import dev.ax.common.store.RunOutput;
import dev.ax.common.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Plans what a batch of completions writes: each one's outcome row with what the {@link
 * RetryPlanner} decides after a failure, and the events it owes ({@link OwedEvents}), recorded by
 * {@code owner} as of one reading of {@code clock}. Thread-safe as its parts are.
 *
 * @param owner this dispatcher's node: the owner whose runs are recorded
 * @param clock the clock the outcomes are recorded on
 */
public record OutcomePlanner(
    String owner, RetryPlanner retries, OwedEvents owedEvents, Clock clock) {

  /**
   * A batch as it is to be written: each completion's outcome and owed events, index by index.
   *
   * @param nowMs when the batch is recorded
   */
  record Plan(String owner, long nowMs, List<Outcome> outcomes, List<List<OutboxMessage>> events) {}

  /** The outcomes of {@code batch}, and the events they owe, as of now. */
  Plan plan(List<Completion> batch) {
    long nowMs = clock.millis();
    List<Outcome> outcomes = new ArrayList<>(batch.size());
    List<List<OutboxMessage>> events = new ArrayList<>(batch.size());
    for (Completion c : batch) {
      AfterFailure after = retries.plan(c, nowMs);
      outcomes.add(
          new Outcome(
              c.claimed().instanceId(),
              c.claimed().taskId(),
              c.claimed().attempt(),
              c.status(),
              c.error(),
              c.finishedAtMs(),
              after,
              c.claimed().shardOf(),
              c.output() == null ? null : new RunOutput(c.startedAtMs(), c.output())));
      events.add(owedEvents.of(c, after, nowMs));
    }
    return new Plan(owner, nowMs, outcomes, events);
  }
}
