package dev.ax.ingest;

import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.FetchPause;
import dev.ax.common.model.Namespace;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code intake} switches on ingest's consumer: while {@code intake} is off, every assigned
 * partition of every namespace's commands topic is paused, so commands wait in Kafka (the group
 * keeps its members and offsets) and are read, in order, once it is on again; while {@code
 * intake.<namespace>} is off, only that namespace's partitions are. A batch already polled is still
 * handled.
 *
 * <p>Threading: the consumer loop's thread only.
 */
final class IntakeGate implements ConsumerLoop.BatchHandler {

  private static final Logger log = LoggerFactory.getLogger(IntakeGate.class);

  private final ConsumerLoop.BatchHandler batches;
  private final BooleanSupplier intakeOn;
  private final Predicate<Namespace> namespaceOn;
  private final Function<String, Optional<Namespace>> namespaceOf;
  private final FetchPause fetching = new FetchPause();

  /** The namespaces whose partitions this paused, each logged once when paused and resumed. */
  private final Set<Namespace> pausedNamespaces = new HashSet<>();

  /**
   * @param namespaceOn whether a namespace's own intake switch is on
   * @param namespaceOf the namespace whose commands a topic holds ({@code
   *     Topics#namespaceOfCommands})
   */
  IntakeGate(
      ConsumerLoop.BatchHandler batches,
      BooleanSupplier intakeOn,
      Predicate<Namespace> namespaceOn,
      Function<String, Optional<Namespace>> namespaceOf) {
    this.batches = batches;
    this.intakeOn = intakeOn;
    this.namespaceOn = namespaceOn;
    this.namespaceOf = namespaceOf;
  }

  @Override
  public void handle(ConsumerRecords<String, byte[]> records) throws Exception {
    batches.handle(records);
  }

  @Override
  public void beforePoll(KafkaConsumer<String, byte[]> consumer) {
    switch (fetching.apply(consumer, !intakeOn.getAsBoolean())) {
      case PAUSED -> log.info("Intake off: reading of commands paused; they wait in Kafka");
      case RESUMED -> log.info("Intake on: reading of commands resumed");
      case NONE -> {}
    }
    if (intakeOn.getAsBoolean()) {
      applyNamespaceSwitches(consumer);
    }
  }

  /** Pauses the partitions of namespaces switched off, resumes those of namespaces on again. */
  private void applyNamespaceSwitches(KafkaConsumer<String, byte[]> consumer) {
    Map<Namespace, Boolean> on = new HashMap<>();
    List<TopicPartition> pause = new ArrayList<>();
    List<TopicPartition> resume = new ArrayList<>();
    for (TopicPartition partition : consumer.assignment()) {
      Optional<Namespace> namespace = namespaceOf.apply(partition.topic());
      if (namespace.isEmpty()) {
        continue;
      }
      if (on.computeIfAbsent(namespace.get(), namespaceOn::test)) {
        if (pausedNamespaces.contains(namespace.get())) {
          resume.add(partition);
        }
      } else {
        pause.add(partition);
      }
    }
    consumer.pause(pause); // again on every pass: a rebalance hands partitions over unpaused
    consumer.resume(resume);
    on.forEach(
        (namespace, isOn) -> {
          if (!isOn && pausedNamespaces.add(namespace)) {
            log.info("Intake of namespace {} off: its commands wait in Kafka", namespace);
          } else if (isOn && pausedNamespaces.remove(namespace)) {
            log.info("Intake of namespace {} on: reading its commands again", namespace);
          }
        });
  }
}
