package dev.ax.common.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every partition of the loop's topics, taken by assignment rather than through a group, from their
 * current end ({@link ConsumerLoop#everyPartitionFromEnd}): the positions are fixed when the loop
 * starts, so every record written after {@link ConsumerLoop#start()} returns is read. Partitions
 * added to a topic later are taken from their beginning once the loop sees them, within {@link
 * #PARTITION_REFRESH}. Nothing is committed; the consumer has no group id.
 *
 * <p>Not thread-safe: {@link #beforeStart} runs on the caller's thread before the loop thread
 * starts (which orders it before everything after), {@link #beforePoll} on the loop thread.
 */
final class FromEndAssignment implements PartitionAssignment {

  // The loop's logger: these lines are the loop's, and read as such where its level is set.
  private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);

  /** How often the loop looks for partitions added to its topics. */
  static final Duration PARTITION_REFRESH = Duration.ofSeconds(30);

  /** How long {@link #beforeStart} waits for the end offsets (and a look for partitions). */
  static final Duration POSITION_TIMEOUT = Duration.ofSeconds(10);

  private final String loopName;
  private final Collection<String> topics;

  /** When the loop last looked for new partitions; loop thread only after the start. */
  private long lastPartitionRefreshNanos = System.nanoTime();

  FromEndAssignment(String loopName, Collection<String> topics) {
    this.loopName = loopName;
    this.topics = topics;
  }

  /**
   * Takes every partition and fixes its position at the current end. If the broker does not answer
   * within {@link #POSITION_TIMEOUT}, the positions are fixed at the first poll instead (logged).
   */
  @Override
  public void beforeStart(Consumer<String, byte[]> consumer) {
    List<TopicPartition> partitions = partitionsOfTopics(consumer);
    consumer.assign(partitions);
    consumer.seekToEnd(partitions);
    try {
      for (TopicPartition partition : partitions) {
        consumer.position(partition, POSITION_TIMEOUT);
      }
      log.info("{} reads {} partition(s) from their end", loopName, partitions.size());
    } catch (TimeoutException e) {
      log.warn(
          "{} could not read the end offsets of {} within {} ms; they are fixed at the first"
              + " poll",
          loopName,
          partitions,
          POSITION_TIMEOUT.toMillis());
    }
  }

  /** Takes partitions added to the topics since the last look, from their beginning. */
  @Override
  public void beforePoll(Consumer<String, byte[]> consumer) {
    long nowNanos = System.nanoTime();
    if (nowNanos - lastPartitionRefreshNanos < PARTITION_REFRESH.toNanos()) {
      return;
    }
    lastPartitionRefreshNanos = nowNanos;
    try {
      List<TopicPartition> added = new ArrayList<>(partitionsOfTopics(consumer));
      added.removeAll(consumer.assignment());
      if (added.isEmpty()) {
        return;
      }
      List<TopicPartition> all = new ArrayList<>(consumer.assignment());
      all.addAll(added);
      consumer.assign(all);
      consumer.seekToBeginning(added);
      log.info("{} reads new partition(s) {} from their beginning", loopName, added);
    } catch (KafkaException e) {
      log.debug("{} could not look for new partitions: {}", loopName, e.toString());
    }
  }

  private List<TopicPartition> partitionsOfTopics(Consumer<String, byte[]> consumer) {
    List<TopicPartition> partitions = new ArrayList<>();
    for (String topic : topics) {
      for (var info : consumer.partitionsFor(topic, POSITION_TIMEOUT)) {
        partitions.add(new TopicPartition(topic, info.partition()));
      }
    }
    return partitions;
  }
}
