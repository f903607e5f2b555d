package dev.ax.common.kafka;

import dev.ax.common.contract.Echo;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempts at one batch a {@link ConsumerLoop} polled: the whole batch through its handler, and
 * after a failure, as the failure decides (see the loop's class comment), a rewind and a wait, or
 * the one-at-a-time pass of {@link PoisonIsolation}; the batch's offsets are committed when it is
 * done. The loop owns the poll and the thread; this class owns what happens to a batch once polled.
 *
 * <p>Not thread-safe: the loop thread only, as are the parts it is given.
 *
 * @param name the loop's name, in every log line
 * @param retryBackoff the wait before a batch is tried again after an outage
 */
record BatchAttempts(
    String name,
    KafkaConsumer<String, byte[]> consumer,
    GuardedHandler guarded,
    OffsetCommits commits,
    BrokerRefusals refusals,
    OutageStreak outages,
    PoisonIsolation isolation,
    Duration retryBackoff) {

  /** The loop's logger: these lines are the loop's, where operators look for them. */
  private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);

  /**
   * Handles one polled batch, whole or, after a failure, one record at a time (see {@link
   * ConsumerLoop}), and commits it when done.
   *
   * @return zero when the batch is done; else the wait before it is tried again, the consumer
   *     sought back to its first record not done
   */
  Duration handle(ConsumerRecords<String, byte[]> records) throws InterruptedException {
    Exception failure = guarded.tryHandle(records);
    if (failure == null) {
      commits.commitBatch(BatchOffsets.next(records));
      refusals.worked();
      int outagesBefore = outages.end();
      if (outagesBefore > 0) {
        log.info("{} recovered after {} failed attempt(s)", name, outagesBefore);
      }
      return Duration.ZERO;
    }
    Optional<KafkaException> refusal = BrokerRefusals.refusalIn(failure);
    if (refusal.isPresent()) {
      // The handler's own client is refused (its producer's topic, say): no record is to blame.
      BatchOffsets.rewind(consumer, BatchOffsets.first(records));
      return refusals.refused(refusal.get());
    }
    boolean outage = TransientFailures.isTransient(failure);
    if (!outages.oneAtATimeAfter(outage)) {
      log.warn(
          "{} could not handle {} record(s), retrying in {} ms (attempt {}): {}",
          name,
          records.count(),
          retryBackoff.toMillis(),
          outages.inARow(),
          Echo.cut(failure.toString()));
      BatchOffsets.rewind(consumer, BatchOffsets.first(records));
      return retryBackoff;
    }
    if (outage) {
      log.warn(
          "{} could not handle {} record(s) {} times in a row ({}); trying them one at a time",
          name,
          records.count(),
          outages.inARow(),
          Echo.cut(failure.toString()));
    } else {
      log.warn(
          "{} could not handle {} record(s), not from an outage ({}); handling them one at"
              + " a time to find the one(s) that fail",
          name,
          records.count(),
          Echo.cut(failure.toString()));
    }
    Optional<Map<TopicPartition, Long>> notDone = isolation.handleOneByOne(records);
    if (notDone.isPresent()) {
      BatchOffsets.rewind(consumer, notDone.get());
      return retryBackoff;
    }
    commits.commitBatch(BatchOffsets.next(records));
    refusals.worked();
    outages.end();
    return Duration.ZERO;
  }
}
