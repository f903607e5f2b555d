package dev.ax.retry;

import dev.ax.common.contract.TaskRetryEvent;
import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.EventDecoder;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.retry.RetryStore.PendingRetry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What feeds the {@link RetryLoop}: retry events from {@code ax.task.retry} as failures happen
 * (those due within the horizon), and a database scan of the RETRYING rows of this replica's share,
 * which is also the wheel's rebuild after a restart or a rebalance. Replicas share the work by the
 * partitions of {@code ax.task.retry} they hold: the scan keeps a row when Kafka's default
 * partitioner would put its task id on one of them ({@link #partitionOf}).
 *
 * <p>Threading: the consumer thread calls the {@link ConsumerLoop.BatchHandler} methods; the scan
 * runs on the {@code scans} executor. The owned partitions are a concurrent set and the partition
 * count a volatile field.
 */
final class RetryIntake implements ConsumerLoop.BatchHandler {

  private static final Logger log = LoggerFactory.getLogger(RetryIntake.class);

  /** How long the consumer thread waits for the retry topic's partition count. */
  private static final Duration METADATA_WAIT = Duration.ofSeconds(1);

  private final Wiring wiring;
  private final Set<Integer> ownedPartitions = ConcurrentHashMap.newKeySet();

  /**
   * The retry topic's partition count (which decides this replica's share of the scan), -1 until
   * the consumer thread has read it once partitions are assigned: read at start, it failed the
   * start of a stage whose broker did not answer.
   */
  private volatile int retryPartitions = -1;

  /**
   * What an intake is wired with; immutable, each part thread-safe as the class comment says.
   *
   * @param retryEvents decodes the records of {@code retryTopic}
   * @param scans runs a scan at once when partitions are assigned (the stage's scheduler)
   * @param horizon retries due within this of now go to the wheel; later ones wait for a scan
   * @param maxPending the most rows a scan reads
   */
  record Wiring(
      Clock clock,
      RetryPort port,
      RetryLoop loop,
      EventDecoder<TaskRetryEvent> retryEvents,
      Executor scans,
      String retryTopic,
      Duration horizon,
      int maxPending) {

    /** The end of the horizon: retries due before it go to the wheel. */
    long untilMs() {
      return SaturatingMillis.atMs(clock.millis(), horizon);
    }
  }

  RetryIntake(Wiring wiring) {
    this.wiring = wiring;
  }

  /** Retry events as failures happen: those due within the horizon go to the wheel now. */
  @Override
  public void handle(ConsumerRecords<String, byte[]> records) {
    long untilMs = wiring.untilMs();
    RetryLoop loop = wiring.loop();
    EventDecoder<TaskRetryEvent> events = wiring.retryEvents();
    events.forEachEvent(
        records,
        (record, event) -> {
          if (event.retryAtMs() < untilMs) {
            loop.offer(new HeldRetry(event.seq(), event.retryAtMs())); // full: the scan has it
          }
        });
  }

  @Override
  public void beforePoll(KafkaConsumer<String, byte[]> consumer) {
    if (retryPartitions < 1 && !ownedPartitions.isEmpty()) {
      readRetryPartitions(consumer);
    }
  }

  @Override
  public void onAssigned(Collection<TopicPartition> partitions) {
    partitions.forEach(p -> ownedPartitions.add(p.partition()));
    scanSoon(); // rebuild what they hold now
  }

  @Override
  public void onRevoked(Collection<TopicPartition> partitions) {
    partitions.forEach(p -> ownedPartitions.remove(p.partition()));
  }

  /** The database scan: pending retries due within the horizon, of this replica's partitions. */
  void scanQuietly() {
    try {
      int partitions = retryPartitions;
      if (partitions < 1 || ownedPartitions.isEmpty()) {
        return;
      }
      int offered = 0;
      for (PendingRetry retry :
          wiring.port().pendingRetries(wiring.untilMs(), wiring.maxPending())) {
        if (ownedPartitions.contains(partitionOf(retry.taskId(), partitions))
            && wiring.loop().offer(new HeldRetry(retry.seq(), retry.nextAttemptAtMs()))) {
          offered++;
        }
      }
      log.debug("Retry scan offered {} pending retr(ies) to the wheel", offered);
    } catch (RuntimeException e) {
      log.warn("Retry scan failed, the next one retries: {}", e.toString());
    }
  }

  /** Consumer thread, once partitions are assigned (their metadata is then at hand). */
  private void readRetryPartitions(KafkaConsumer<String, byte[]> consumer) {
    try {
      retryPartitions = consumer.partitionsFor(wiring.retryTopic(), METADATA_WAIT).size();
      scanSoon(); // the scan after the assignment found no count
    } catch (WakeupException e) {
      throw e;
    } catch (KafkaException e) {
      log.debug("Retry topic's partitions not known yet: {}", e.toString());
    }
  }

  /** Runs a scan on the scan executor; inside poll() an exception would end the consumer thread. */
  private void scanSoon() {
    try {
      wiring.scans().execute(this::scanQuietly);
    } catch (RejectedExecutionException e) {
      // Shutting down.
    }
  }

  /** For tests: as if the consumer had read the retry topic's partition count. */
  void partitionsKnown(int partitions) {
    retryPartitions = partitions;
  }

  /** The partition Kafka's default partitioner gives a record keyed by {@code taskId}. */
  static int partitionOf(String taskId, int partitions) {
    return Utils.toPositive(Utils.murmur2(taskId.getBytes(StandardCharsets.UTF_8))) % partitions;
  }
}
