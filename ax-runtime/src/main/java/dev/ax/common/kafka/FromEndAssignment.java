package dev.ax.common.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
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
 * #POSITION_TIMEOUT}), the start goes on. Without partitions the loop polls nothing and its thread
 * tries again before each poll, one retry backoff apart; with partitions of which some have no
 * position yet (their leader does not answer), it polls those that have one, and the poll fixes the
 * others when their leaders answer. Once every position is fixed after the start, it runs {@code
 * positionedLate}, since what was written to those partitions in between was not read. A broker
 * away at start therefore never fails the start; any other error of the broker's at start does.
 *
 * <p>Not thread-safe: {@link #beforeStart} runs on the caller's thread before the loop thread
 * starts (which orders it before everything after), {@link #beforePoll} on the loop thread.
 */
final class FromEndAssignment implements PartitionAssignment {

  // The loop's logger: these lines are the loop's, and read as such where its level is set.
  private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);

  /** How often the loop looks for partitions added to its topics. */
  static final Duration PARTITION_REFRESH = Duration.ofSeconds(30);

  /** How long one try at start waits for the partitions, and then for all their end offsets. */
  static final Duration POSITION_TIMEOUT = Duration.ofSeconds(10);

  /** How far the positions are. */
  private enum Positions {
    /** No partition taken: nothing to poll. */
    NONE,
    /** Partitions taken, some without a position yet: the others can be polled. */
    SOME,
    /** Every partition has its position. */
    ALL
  }

  private final String loopName;
  private final Collection<String> topics;
  private final Runnable positionedLate;
  private Positions positions = Positions.NONE;

  /** Whether the positions' lateness was logged, so that it is logged once. */
  private boolean lateLogged;

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

  /**
   * Takes every partition and fixes its position at the current end, if the broker answers within
   * {@link #POSITION_TIMEOUT}.
   */
  @Override
  public void beforeStart(Consumer<String, byte[]> consumer) {
    try {
      positions = tryPositions(consumer, POSITION_TIMEOUT);
    } catch (WakeupException e) {
      // close() ran while this start waited for the broker: the loop thread sees the stop.
    }
    if (positions == Positions.ALL) {
      log.info("{} reads {} partition(s) from their end", loopName, consumer.assignment().size());
    }
  }

  /**
   * Until every position is fixed, tries again (a wakeup still ends the loop; any other error of
   * the broker's counts as a failed try) and says whether there is anything to poll; after, takes
   * partitions added to the topics since the last look, from their beginning.
   */
  @Override
  public boolean beforePoll(Consumer<String, byte[]> consumer) {
    if (positions != Positions.ALL) {
      try {
        // With partitions taken, the poll fixes the missing positions: only look at them here.
        positions =
            tryPositions(consumer, positions == Positions.NONE ? POSITION_TIMEOUT : Duration.ZERO);
      } catch (WakeupException e) {
        throw e;
      } catch (KafkaException e) {
        notYet(e.toString());
      }
      if (positions == Positions.ALL) {
        log.info(
            "{} reads {} partition(s) from their end, later than its start: records written"
                + " before then are not read",
            loopName,
            consumer.assignment().size());
        positionedLate.run();
      }
      return positions != Positions.NONE;
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
   * Takes the partitions (once, waiting up to {@link #POSITION_TIMEOUT}) and reads each one's end
   * offset as its position, all within {@code positionWait}.
   */
  private Positions tryPositions(Consumer<String, byte[]> consumer, Duration positionWait) {
    if (consumer.assignment().isEmpty()) {
      List<TopicPartition> partitions;
      try {
        partitions = partitionsOfTopics(consumer);
      } catch (TimeoutException e) {
        return notYet(
            "the broker did not answer within " + POSITION_TIMEOUT.toMillis() + " ms: " + e);
      }
      if (partitions.isEmpty()) {
        return notYet("no partition of " + topics + " exists yet");
      }
      consumer.assign(partitions);
      consumer.seekToEnd(partitions);
    }
    long deadlineNanos = System.nanoTime() + positionWait.toNanos();
    int withoutPosition = 0;
    for (TopicPartition partition : consumer.assignment()) {
      try {
        consumer.position(
            partition, Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime())));
      } catch (TimeoutException e) {
        withoutPosition++;
      }
    }
    if (withoutPosition > 0) {
      notYet(
          withoutPosition
              + " of "
              + consumer.assignment().size()
              + " partition(s) have no end offset yet; the others are read");
      return Positions.SOME;
    }
    return Positions.ALL;
  }

  /** Logs, once, why the positions are not fixed yet; returns {@link Positions#NONE}. */
  private Positions notYet(String why) {
    if (!lateLogged) {
      lateLogged = true;
      log.warn("{} cannot fix its positions yet ({}); it tries again until it can", loopName, why);
    } else {
      log.debug("{} cannot fix its positions yet: {}", loopName, why);
    }
    return Positions.NONE;
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
