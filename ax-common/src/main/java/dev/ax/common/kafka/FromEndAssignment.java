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
 * <p>If the broker does not answer at start (no partitions, or no end offsets, within {@link
 * #POSITION_TIMEOUT}), the start goes on, and the loop's thread tries again before each poll, one
 * retry backoff apart, until the positions are fixed; it then runs {@code positionedLate}, since
 * what was written in between was not read. A broker away at start therefore never fails the start,
 * and the loop polls nothing until it knows where to read from.
 *
 * <p>Not thread-safe: {@link #beforeStart} runs on the caller's thread before the loop thread
 * starts (which orders it before everything after), {@link #beforePoll} on the loop thread.
 */
final class FromEndAssignment implements PartitionAssignment {

  // The loop's logger: these lines are the loop's, and read as such where its level is set.
  private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);

  /** How often the loop looks for partitions added to its topics. */
  static final Duration PARTITION_REFRESH = Duration.ofSeconds(30);

  /** How long one try waits for the partitions, and then for their end offsets. */
  static final Duration POSITION_TIMEOUT = Duration.ofSeconds(10);

  private final String loopName;
  private final Collection<String> topics;
  private final Runnable positionedLate;

  /** Whether every partition's position is fixed; the loop polls only once it is. */
  private boolean positioned;

  /** Failed tries since the last success, for the log. */
  private int failedTries;

  /** When the loop last looked for new partitions; loop thread only after the start. */
  private long lastPartitionRefreshNanos = System.nanoTime();

  /**
   * @param positionedLate runs on the loop thread when the positions are fixed after the start, not
   *     during it
   */
  FromEndAssignment(String loopName, Collection<String> topics, Runnable positionedLate) {
    this.loopName = loopName;
    this.topics = topics;
    this.positionedLate = positionedLate;
  }

  /** Takes every partition and fixes its position at the current end, if the broker answers. */
  @Override
  public void beforeStart(Consumer<String, byte[]> consumer) {
    positioned = tryPositions(consumer);
  }

  /**
   * Until the positions are fixed, tries to fix them and says whether it did; after, takes
   * partitions added to the topics since the last look, from their beginning.
   */
  @Override
  public boolean beforePoll(Consumer<String, byte[]> consumer) {
    if (!positioned) {
      positioned = tryPositions(consumer);
      if (positioned) {
        positionedLate.run();
      }
      return positioned;
    }
    long nowNanos = System.nanoTime();
    if (nowNanos - lastPartitionRefreshNanos < PARTITION_REFRESH.toNanos()) {
      return true;
    }
    lastPartitionRefreshNanos = nowNanos;
    try {
      List<TopicPartition> added = new ArrayList<>(partitionsOfTopics(consumer));
      added.removeAll(consumer.assignment());
      if (added.isEmpty()) {
        return true;
      }
      List<TopicPartition> all = new ArrayList<>(consumer.assignment());
      all.addAll(added);
      consumer.assign(all);
      consumer.seekToBeginning(added);
      log.info("{} reads new partition(s) {} from their beginning", loopName, added);
    } catch (KafkaException e) {
      log.debug("{} could not look for new partitions: {}", loopName, e.toString());
    }
    return true;
  }

  /**
   * Takes the partitions (once) and reads each one's end offset as its position.
   *
   * @return whether every position is fixed; false when the broker did not answer in time or the
   *     topics have no partitions yet
   */
  private boolean tryPositions(Consumer<String, byte[]> consumer) {
    try {
      if (consumer.assignment().isEmpty()) {
        List<TopicPartition> partitions = partitionsOfTopics(consumer);
        if (partitions.isEmpty()) {
          return failed("no partition of " + topics + " exists yet");
        }
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
      }
      for (TopicPartition partition : consumer.assignment()) {
        consumer.position(partition, POSITION_TIMEOUT);
      }
    } catch (TimeoutException e) {
      return failed(
          "the broker did not answer within " + POSITION_TIMEOUT.toMillis() + " ms: " + e);
    }
    if (failedTries > 0) {
      log.info(
          "{} reads {} partition(s) from their end, after {} failed tr{}: records written"
              + " before then are not read",
          loopName,
          consumer.assignment().size(),
          failedTries,
          failedTries == 1 ? "y" : "ies");
    } else {
      log.info("{} reads {} partition(s) from their end", loopName, consumer.assignment().size());
    }
    failedTries = 0;
    return true;
  }

  private boolean failed(String why) {
    failedTries++;
    if (failedTries == 1) {
      log.warn(
          "{} cannot take its partitions yet ({}); it tries again until it can", loopName, why);
    } else {
      log.debug("{} cannot take its partitions yet (try {}): {}", loopName, failedTries, why);
    }
    return false;
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
