package dev.ax.dispatcher.run;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.RunResult;
import dev.ax.common.contract.ShardSummary;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.contract.TaskDeadEvent;
import dev.ax.common.contract.TaskRetryEvent;
import dev.ax.common.kafka.Topics;
import dev.ax.common.kafka.TraceHeaders;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AfterFailure;
import dev.ax.common.store.OutboxMessage;
import dev.ax.dispatcher.executor.HttpTaskExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The events a recorded outcome owes, as outbox messages, in the order they are sent: its
 * completion on {@code ax.task.completed}, the same keyed by flow run on {@code ax.flow.succeeded}
 * when its task may have dependents, and its retry or dead letter. They are written to the outbox
 * in the outcome's transaction ({@link OutcomeRecorder}), so they say what was recorded.
 *
 * <p>Thread-safety: immutable, but for {@code mayHaveDependents}, which must be thread-safe; any
 * thread may call {@link #of}.
 */
public final class OwedEvents {

  private final Topics topics;
  private final String nodeId;
  private final Predicate<String> mayHaveDependents;

  /**
   * @param nodeId this dispatcher's node, named in each completion
   * @param mayHaveDependents whether a task's successes must be copied, keyed by flow run, to
   *     {@code ax.flow.succeeded} for the dependency resolver (see {@link UpstreamTasks})
   */
  public OwedEvents(Topics topics, String nodeId, Predicate<String> mayHaveDependents) {
    this.topics = topics;
    this.nodeId = nodeId;
    this.mayHaveDependents = mayHaveDependents;
  }

  /** The events {@code c} owes once recorded with {@code after}, in the order they are sent. */
  List<OutboxMessage> of(Completion c, AfterFailure after, long nowMs) {
    List<OutboxMessage> owed = new ArrayList<>(3);
    Map<String, String> headers =
        TraceHeaders.of(
            c.claimed().traceId(),
            "completed:" + c.claimed().instanceId() + '#' + c.claimed().attempt());
    TaskCompletedEvent completion = completion(c, after);
    owed.add(OutboxMessage.completion(topics, completion, headers));
    // A shard's success is not its firing's: the firing's own, once every shard ended, is copied
    // (ShardEvents), so that a dependent waits for the whole firing.
    if (c.status() == InstanceStatus.SUCCESS
        && !c.claimed().isShard()
        && mayHaveDependents.test(c.claimed().taskId())) {
      // The same event keyed by flow run, with the stored ids, for the dependency resolver.
      owed.add(
          new OutboxMessage(
              topics.flowSucceeded(), c.claimed().flowRunId(), AxJson.write(completion), headers));
    }
    if (after instanceof AfterFailure.Retry retry) {
      owed.add(message(topics.retry(), c, retryEvent(c, retry), headers));
    } else if (after instanceof AfterFailure.Dead death) {
      owed.add(message(topics.deadletter(), c, deadLetter(c, death.reason(), nowMs), headers));
    }
    return owed;
  }

  /** {@code event} on {@code topic}, keyed by the attempt's task. */
  private static OutboxMessage message(
      String topic, Completion c, Object event, Map<String, String> headers) {
    return new OutboxMessage(topic, c.claimed().taskId(), AxJson.write(event), headers);
  }

  private TaskCompletedEvent completion(Completion c, AfterFailure after) {
    return new TaskCompletedEvent(
        AxJson.VERSION,
        c.claimed().taskId(),
        c.claimed().instanceId(),
        c.claimed().attempt(),
        c.status(),
        c.claimed().dueAtMs(),
        c.claimed().claimedAtMs(),
        c.startedAtMs(),
        c.finishedAtMs(),
        c.finishedAtMs() - c.startedAtMs(),
        c.claimed().claimedAtMs() - c.claimed().dueAtMs(),
        c.claimed().traceId(),
        c.error(),
        nodeId,
        instanceStatus(c, after),
        c.claimed().flowRunId(),
        c.context() == null ? null : c.context().task().trigger().type(),
        null,
        c.claimed().isShard()
            ? ShardSummary.ofShard(
                c.claimed().shardIndex(), c.claimed().shardTotal(), c.claimed().shardOf())
            : null,
        result(c));
  }

  /** The summary of what {@code c}'s run said, null when it said nothing. */
  private static RunResult result(Completion c) {
    boolean http = c.executor() != null && HttpTaskExecutor.NAME.equals(c.executor().name());
    return RunResult.of(c.output(), http ? HttpTaskExecutor.statusOf(c.output()) : null);
  }

  /** Where the instance stands after this attempt. */
  private static InstanceStatus instanceStatus(Completion c, AfterFailure after) {
    if (after instanceof AfterFailure.Retry) {
      return InstanceStatus.RETRYING;
    }
    if (after instanceof AfterFailure.Dead) {
      return InstanceStatus.DEAD;
    }
    return c.status();
  }

  private static TaskRetryEvent retryEvent(Completion c, AfterFailure.Retry retry) {
    return new TaskRetryEvent(
        AxJson.VERSION,
        c.claimed().taskId(),
        c.claimed().instanceId(),
        c.claimed().seq(),
        c.claimed().attempt(),
        retry.atMs(),
        c.claimed().traceId(),
        c.group(),
        c.error());
  }

  /** The dead letter of the instance {@code c} left DEAD, for {@code reason}. */
  private static TaskDeadEvent deadLetter(Completion c, String reason, long nowMs) {
    return new TaskDeadEvent(
        AxJson.VERSION,
        c.claimed().taskId(),
        c.claimed().instanceId(),
        c.claimed().attempt(),
        c.status(),
        c.error(),
        reason,
        c.stackTrace(),
        c.claimed().traceId(),
        c.group(),
        nowMs);
  }
}
