package dev.ax.common.store;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.kafka.DueRecords;
import dev.ax.common.kafka.Topics;
import dev.ax.common.kafka.TraceHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The events of sharded firings ({@link ShardFirings}), as outbox messages written in the
 * transaction that fans out or settles: each new shard's due event on {@code ax.task.due}, keyed by
 * the shard's own id so that a firing's shards spread over the partitions and so over the
 * dispatchers; and a settled firing's aggregate completion on its namespace's completed topic (with
 * {@code "shards"}: how many succeeded, which failed), plus, for a success, the same keyed by flow
 * run on {@code ax.flow.succeeded}, so that a dependent task waits for the whole firing and never
 * for one shard (shards' own successes are never copied there).
 *
 * <p>Immutable; thread-safe.
 *
 * @param node who settles, named in the completion (a dispatcher's node, or the reaper's)
 */
public record ShardEvents(Topics topics, String node) {

  /** The due events of {@code shards}, stamped with the ticker lease's {@code epoch}. */
  public List<OutboxMessage> due(List<DueInstance> shards, long epoch, String group, long nowMs) {
    List<OutboxMessage> messages = new ArrayList<>(shards.size());
    for (DueInstance shard : shards) {
      TaskDueEvent event = DueRecords.eventOf(shard, epoch, nowMs, group);
      messages.add(
          new OutboxMessage(
              topics.due(),
              shard.instanceId(),
              AxJson.write(event),
              TraceHeaders.of(shard.traceId(), "due:" + shard.instanceId() + "#1")));
    }
    return messages;
  }

  /** The events {@code settled} owes, in the order they are sent. */
  public List<OutboxMessage> settled(List<ShardFirings.Settled> settled, long nowMs) {
    List<OutboxMessage> messages = new ArrayList<>();
    for (ShardFirings.Settled firing : settled) {
      TaskCompletedEvent completion =
          new TaskCompletedEvent(
              AxJson.VERSION,
              firing.taskId(),
              firing.instanceId(),
              firing.attempt(),
              firing.status(),
              firing.dueAtMs(),
              firing.claimedAtMs(),
              firing.claimedAtMs(),
              nowMs,
              nowMs - firing.claimedAtMs(),
              firing.claimedAtMs() - firing.dueAtMs(),
              firing.traceId(),
              firing.error(),
              node,
              firing.status(),
              firing.flowRunId(),
              firing.triggerType(),
              null,
              firing.shards(),
              null);
      Map<String, String> traced =
          TraceHeaders.of(
              firing.traceId(), "completed:" + firing.instanceId() + '#' + firing.attempt());
      messages.add(OutboxMessage.completion(topics, completion, traced));
      if (firing.status() == dev.ax.common.model.InstanceStatus.SUCCESS) {
        messages.add(
            new OutboxMessage(
                topics.flowSucceeded(), firing.flowRunId(), AxJson.write(completion), traced));
      }
    }
    return messages;
  }
}
