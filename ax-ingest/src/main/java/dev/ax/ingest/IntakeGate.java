package dev.ax.ingest;

import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.FetchPause;
import dev.ax.common.model.Namespace;
import dev.ax.common.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code intake} switches on ingest's consumer: while {@code intake} is off, every assigned
 * partition of every namespace's commands topic is paused, so commands wait in Kafka (the group
 * keeps its members and offsets) and are read, in order, once it is on again; while {@code
 * intake.<namespace>} is off, or the namespace is over its command rate ({@link NamespaceRate}),
 * only that namespace's partitions are. A batch already polled is still handled.
 *
 * <p>Threading: the consumer loop's thread only.
 */
final class IntakeGate implements ConsumerLoop.BatchHandler {

  private static final Logger log = LoggerFactory.getLogger(IntakeGate.class);

  private final ConsumerLoop.BatchHandler batches;
  private final BooleanSupplier intakeOn;
  private final Predicate<Namespace> namespaceOn;
  private final Function<String, Optional<Namespace>> namespaceOf;
  private final NamespaceRate rate;
  private final Clock clock;
  private final Consumer<Namespace> onThrottled;
  private final FetchPause fetching = new FetchPause();

  /** The namespaces whose partitions this paused, each logged once when paused and resumed. */
  private final Set<Namespace> pausedNamespaces = new HashSet<>();

  /** The namespaces held for their rate now, each counted once per time it is held. */
  private final Set<Namespace> throttledNamespaces = new HashSet<>();

  /**
   * @param namespaceOn whether a namespace's own intake switch is on
   * @param namespaceOf the namespace whose commands a topic holds ({@code
   *     Topics#namespaceOfCommands})
   * @param rate each namespace's command rate, spent by every record handled
   * @param onThrottled told each time a namespace starts waiting for its rate
   */
  IntakeGate(
      ConsumerLoop.BatchHandler batches,
      BooleanSupplier intakeOn,
      Predicate<Namespace> namespaceOn,
      Function<String, Optional<Namespace>> namespaceOf,
      NamespaceRate rate,
      Clock clock,
      Consumer<Namespace> onThrottled) {
    this.batches = batches;
    this.intakeOn = intakeOn;
    this.namespaceOn = namespaceOn;
    this.namespaceOf = namespaceOf;
    this.rate = rate;
    this.clock = clock;
    this.onThrottled = onThrottled;
  }

  @Override
  public void handle(ConsumerRecords<String, byte[]> records) throws Exception {
    batches.handle(records);
    Map<Namespace, Integer> read = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      namespaceOf.apply(record.topic()).ifPresent(n -> read.merge(n, 1, Integer::sum));
    }
    long nowMs = clock.millis();
    read.forEach((namespace, commands) -> rate.spend(namespace, commands, nowMs));
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

  /** Whether {@code namespace} waits for its rate at {@code nowMs}; counts each time it starts. */
  private boolean held(Namespace namespace, long nowMs) {
    if (!rate.throttled(namespace, nowMs)) {
      throttledNamespaces.remove(namespace);
      return false;
    }
    if (throttledNamespaces.add(namespace)) {
      onThrottled.accept(namespace);
    }
    return true;
  }

  /**
   * Pauses the partitions of namespaces switched off or over their rate, resumes those of
   * namespaces on again.
   */
  private void applyNamespaceSwitches(KafkaConsumer<String, byte[]> consumer) {
    Map<Namespace, Boolean> on = new HashMap<>();
    long nowMs = clock.millis();
    List<TopicPartition> pause = new ArrayList<>();
    List<TopicPartition> resume = new ArrayList<>();
    for (TopicPartition partition : consumer.assignment()) {
      Optional<Namespace> namespace = namespaceOf.apply(partition.topic());
      if (namespace.isEmpty()) {
        continue;
      }
      if (on.computeIfAbsent(namespace.get(), n -> namespaceOn.test(n) && !held(n, nowMs))) {
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
            log.info(
                "Intake of namespace {} {}: its commands wait in Kafka",
                namespace,
                throttledNamespaces.contains(namespace) ? "over its command rate" : "off");
          } else if (isOn && pausedNamespaces.remove(namespace)) {
            log.info("Intake of namespace {} on: reading its commands again", namespace);
          }
        });
  }
}
