package dev.ax.dispatcher.run;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.DependencyEntry;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.thread.DaemonThreads;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which tasks have dependents, read from the compacted {@code ax.task.dependencies} topic (the
 * graph the dependency resolver joins against), so that a dispatcher copies to {@code
 * ax.flow.succeeded} only the successes the resolver can act on. Without it every success of every
 * task would go through the resolver's exactly-once transactions, which cost more CPU than the rest
 * of the dispatch path (docs/BENCHMARKS.md, "Measurements behind the code's settings").
 *
 * <p>Until this view has read the topic up to where it ended at start, {@link #mayHaveDependents}
 * answers true for every task: a dispatcher that starts while the graph is still loading forwards
 * everything, as before, and loses no trigger. After that the view lags the topic by one poll
 * (milliseconds), the same lag the resolver's own table has; a dependent registered while its
 * upstream is finishing may miss that one flow run either way.
 *
 * <p>Thread-safety: one reader thread owns the consumer; {@link #mayHaveDependents} may be called
 * from any thread.
 */
public final class UpstreamTasks implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(UpstreamTasks.class);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration TOPIC_WAIT = Duration.ofSeconds(1);

  /** How long one look for the topic's partitions and end offsets waits for the broker. */
  static final Duration METADATA_TIMEOUT = Duration.ofSeconds(10);

  private final String topic;
  private final KafkaConsumer<String, byte[]> consumer;
  private final Set<String> upstreams = ConcurrentHashMap.newKeySet();
  private final Thread reader;
  private volatile boolean loaded;
  private volatile boolean running = true;
  private final CountDownLatch stopping = new CountDownLatch(1);
  private final Duration metadataTimeout;
  private boolean started;

  public UpstreamTasks(KafkaConnection kafka, String topic, String clientId) {
    this(kafka, topic, clientId, METADATA_TIMEOUT);
  }

  /**
   * @param metadataTimeout how long one look for partitions and end offsets waits (tests)
   */
  UpstreamTasks(KafkaConnection kafka, String topic, String clientId, Duration metadataTimeout) {
    this.topic = topic;
    this.metadataTimeout = metadataTimeout;
    Properties props = kafka.properties();
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    this.consumer = new KafkaConsumer<>(props);
    this.reader = DaemonThreads.thread(clientId, this::run);
  }

  public synchronized UpstreamTasks start() {
    if (!started && running) {
      started = true;
      reader.start();
    }
    return this;
  }

  /** False only when the graph, as read so far, names no task that waits for {@code taskId}. */
  public boolean mayHaveDependents(String taskId) {
    return !loaded || upstreams.contains(taskId);
  }

  /** True once the topic was read up to where it ended when this view started. */
  public boolean isLoaded() {
    return loaded;
  }

  private void run() {
    try {
      Map<TopicPartition, Long> endAtStart = awaitEnds();
      if (endAtStart == null) {
        return;
      }
      consumer.assign(endAtStart.keySet());
      consumer.seekToBeginning(endAtStart.keySet());
      while (running) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
          apply(record);
        }
        if (!loaded && reachedEnd(endAtStart)) {
          loaded = true;
          log.info("Dependency graph loaded from {}: {} upstream task(s)", topic, upstreams.size());
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      // The view stays as it is; forwarding everything is the safe answer from here on.
      loaded = false;
      if (running) {
        log.error(
            "Reading {} failed; every success is forwarded to the resolver from now on", topic, e);
      }
    } finally {
      consumer.close(Duration.ofSeconds(1)); // no group, nothing to commit
    }
  }

  /**
   * The end offset of each of the topic's partitions, once the topic exists and the broker answers
   * (a dispatcher may start while it does not); null when closed first.
   */
  private Map<TopicPartition, Long> awaitEnds() {
    int failedLooks = 0;
    while (running) {
      try {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, metadataTimeout);
        if (infos != null && !infos.isEmpty()) {
          List<TopicPartition> partitions =
              infos.stream()
                  .map(p -> new TopicPartition(p.topic(), p.partition()))
                  .collect(Collectors.toList());
          return consumer.endOffsets(partitions, metadataTimeout);
        }
      } catch (TimeoutException e) {
        if (failedLooks++ == 0) {
          log.warn(
              "Dependency graph: {} not read yet, the broker did not answer within {} ms; trying"
                  + " again (every success is forwarded to the resolver meanwhile)",
              topic,
              metadataTimeout.toMillis());
        }
      }
      try {
        if (stopping.await(TOPIC_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
          return null; // closed first
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
    return null;
  }

  /** False also while the broker does not answer: the view keeps loading rather than give up. */
  private boolean reachedEnd(Map<TopicPartition, Long> endAtStart) {
    try {
      for (Map.Entry<TopicPartition, Long> end : endAtStart.entrySet()) {
        if (consumer.position(end.getKey(), metadataTimeout) < end.getValue()) {
          return false;
        }
      }
      return true;
    } catch (TimeoutException e) {
      return false;
    }
  }

  private void apply(ConsumerRecord<String, byte[]> record) {
    if (record.key() == null) {
      return;
    }
    if (record.value() == null) {
      upstreams.remove(record.key());
      return;
    }
    try {
      DependencyEntry entry = AxJson.read(record.value(), DependencyEntry.class);
      if (entry.downstreams() == null || entry.downstreams().isEmpty()) {
        upstreams.remove(record.key());
      } else {
        upstreams.add(record.key());
      }
    } catch (RuntimeException e) {
      // Unreadable: assume it has dependents rather than drop its successes.
      upstreams.add(record.key());
      log.warn(
          "Unreadable dependency entry for {} at {}-{}@{}; forwarding its successes: {}",
          record.key(),
          record.topic(),
          record.partition(),
          record.offset(),
          e.getMessage());
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      running = false;
      if (!started) {
        consumer.close(Duration.ZERO);
        return;
      }
    }
    stopping.countDown();
    // Not interrupt(): an interrupted thread cannot close its consumer's connections cleanly.
    consumer.wakeup();
    DaemonThreads.awaitEnd(reader, Duration.ofSeconds(10));
  }
}
