package dev.ax.ingest;

import dev.ax.common.contract.TaskCommand;
import dev.ax.common.kafka.AnnouncementRecords;
import dev.ax.common.kafka.RejectedRecords;
import dev.ax.common.kafka.Topics;
import dev.ax.common.store.CreateResult;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.ingest.CreatePlan.Announcement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The {@link IngestPort} over the stage's stores and producer. Not thread-safe: the {@link
 * ActiveTaskLimit}'s bounds belong to the consumer thread.
 */
record StoreIngestPort(
    TaskStore tasks,
    ActiveTaskLimit activeTaskLimit,
    ActiveTaskLimit namespaceTaskLimit,
    DependencyIntake dependencies,
    LifecycleIntake lifecycle,
    KafkaProducer<String, byte[]> producer,
    RejectedRecords rejections,
    Topics topics,
    String nodeId)
    implements IngestPort {

  @Override
  public String dependencyRejection(TaskCommand create, Set<String> acceptedInBatch) {
    return dependencies.rejectionOf(create, acceptedInBatch);
  }

  @Override
  public Map<Integer, String> overLimit(List<TaskCommand> creates) {
    Map<Integer, String> rejected = new HashMap<>(activeTaskLimit.rejections(creates));
    // The namespace's bound counts what its groups' bounds let through, by the batch's index.
    List<Integer> through = new ArrayList<>();
    for (int i = 0; i < creates.size(); i++) {
      if (!rejected.containsKey(i)) {
        through.add(i);
      }
    }
    namespaceTaskLimit
        .rejections(through.stream().map(creates::get).toList())
        .forEach((index, reason) -> rejected.put(through.get(index), reason));
    return rejected;
  }

  @Override
  public CreateResult create(List<NewTask> newTasks, long nowMs) {
    return tasks.create(newTasks, nodeId, nowMs);
  }

  @Override
  public Future<RecordMetadata> announce(Announcement a) {
    return producer.send(
        AnnouncementRecords.of(
            topics.scheduled(),
            a.taskId(),
            a.instanceId(),
            a.dueAtMs(),
            a.traceId(),
            a.seq(),
            a.triggerGroup()));
  }

  @Override
  public List<Future<RecordMetadata>> publishGraph(List<NewTask> dependencyTasks) {
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    for (ProducerRecord<String, byte[]> entry : dependencies.graphEntries(dependencyTasks)) {
      sends.add(producer.send(entry));
    }
    return sends;
  }

  @Override
  public Triggered trigger(List<TaskCommand> triggers, long nowMs) {
    DependencyIntake.Triggered triggered = dependencies.trigger(triggers, nowMs);
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    triggered.announcements().forEach(a -> sends.add(producer.send(a)));
    return new Triggered(sends, triggered.rejections(), triggered.duplicates());
  }

  @Override
  public Optional<String> applyLifecycle(
      ConsumerRecord<String, byte[]> record,
      TaskCommand command,
      List<Future<RecordMetadata>> sends)
      throws InterruptedException, ExecutionException {
    return lifecycle.apply(record, command, sends);
  }

  @Override
  public Future<RecordMetadata> reject(ConsumerRecord<String, byte[]> record, String reason) {
    return rejections.send(record, reason);
  }
}
