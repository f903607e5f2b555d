package dev.ax.ingest;

import dev.ax.common.contract.TaskCommand;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.CreateOutcome;
import dev.ax.common.store.CreateResult;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.StoreException;
import dev.ax.ingest.CreatePlan.Announcement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * An {@link IngestPort} over maps and lists: stores tasks by id, records every send and every call
 * in order, and can be told to fail the insert or the sends.
 */
final class InMemoryIngestPort implements IngestPort {

  /** A rejected record as sent: its key and the reason. */
  record Rejected(String key, String reason) {}

  final Map<String, NewTask> stored = new LinkedHashMap<>();
  final List<Announcement> announced = new ArrayList<>();
  final List<String> graphPublished = new ArrayList<>();
  final List<TaskCommand> triggered = new ArrayList<>();
  final List<Rejected> rejected = new ArrayList<>();

  /** Every call that writes, in order: "create a,b", "lifecycle CANCEL a", "trigger t". */
  final List<String> calls = new ArrayList<>();

  /** Task ids whose CREATE is over its group's limit. */
  final Set<String> overLimitIds = new HashSet<>();

  /** Lifecycle refusals by task id; a command for another id applies. */
  final Map<String, String> lifecycleRefusals = new HashMap<>();

  boolean failCreate;
  boolean failSends;
  private long nextSeq = 1;

  private Future<RecordMetadata> sent() {
    return failSends
        ? CompletableFuture.failedFuture(new IllegalStateException("broker away"))
        : CompletableFuture.completedFuture(null);
  }

  @Override
  public String dependencyRejection(TaskCommand create, Set<String> acceptedInBatch) {
    for (String upstream : ((Trigger.Dependency) create.spec().trigger()).upstreamTaskIds()) {
      if (!stored.containsKey(upstream) && !acceptedInBatch.contains(upstream)) {
        return "unknown upstream " + upstream;
      }
    }
    return null;
  }

  @Override
  public Map<Integer, String> overLimit(List<TaskCommand> creates) {
    Map<Integer, String> over = new HashMap<>();
    for (int i = 0; i < creates.size(); i++) {
      if (overLimitIds.contains(creates.get(i).taskId())) {
        over.put(i, "over the limit");
      }
    }
    return over;
  }

  @Override
  public CreateResult create(List<NewTask> tasks, long nowMs) {
    if (failCreate) {
      throw new StoreException("database away", null);
    }
    calls.add("create " + String.join(",", tasks.stream().map(t -> t.spec().taskId()).toList()));
    List<CreateOutcome> outcomes = new ArrayList<>();
    Map<String, Long> seqs = new HashMap<>();
    for (NewTask task : tasks) {
      if (stored.putIfAbsent(task.spec().taskId(), task) != null) {
        outcomes.add(CreateOutcome.DUPLICATE);
        continue;
      }
      outcomes.add(CreateOutcome.CREATED);
      if (task.hasFirstInstance()) {
        seqs.put(InstanceIds.of(task.spec().taskId(), task.firstDueAtMs()), nextSeq++);
      }
    }
    return new CreateResult(outcomes, seqs);
  }

  @Override
  public Future<RecordMetadata> announce(Announcement announcement) {
    announced.add(announcement);
    return sent();
  }

  @Override
  public List<Future<RecordMetadata>> publishGraph(List<NewTask> dependencyTasks) {
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    for (NewTask task : dependencyTasks) {
      graphPublished.add(task.spec().taskId());
      sends.add(sent());
    }
    return sends;
  }

  @Override
  public Triggered trigger(List<TaskCommand> triggers, long nowMs) {
    calls.add("trigger " + String.join(",", triggers.stream().map(TaskCommand::taskId).toList()));
    Map<TaskCommand, String> rejections = new IdentityHashMap<>();
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    for (TaskCommand command : triggers) {
      if (!stored.containsKey(command.taskId())) {
        rejections.put(command, "TRIGGER for unknown task " + command.taskId());
        continue;
      }
      triggered.add(command);
      sends.add(sent());
    }
    return new Triggered(sends, rejections, 0);
  }

  @Override
  public Optional<String> applyLifecycle(
      ConsumerRecord<String, byte[]> record,
      TaskCommand command,
      List<Future<RecordMetadata>> sends) {
    calls.add("lifecycle " + command.type() + " " + command.taskId());
    return Optional.ofNullable(lifecycleRefusals.get(command.taskId()));
  }

  @Override
  public Future<RecordMetadata> reject(ConsumerRecord<String, byte[]> record, String reason) {
    rejected.add(new Rejected(record.key(), reason));
    return sent();
  }
}
