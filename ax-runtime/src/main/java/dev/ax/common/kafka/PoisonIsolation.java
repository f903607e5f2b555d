package dev.ax.common.kafka;

import dev.ax.common.contract.Echo;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pass of a {@link ConsumerLoop} over a failed batch one record at a time, in order, that finds
 * the record(s) the batch failed on: a record that fails {@value ConsumerLoop#POISON_TRIES} times
 * in a row, not from an outage, is handed to the {@link RecordParking}, logged once at ERROR and
 * passed over. An outage, a stop, or a record the parking topic does not take ends the pass, and
 * the loop seeks every partition back to its first record not done yet, so that nothing is passed
 * over unparked.
 *
 * <p>Not thread-safe: the loop thread only (it calls the handler).
 */
final class PoisonIsolation {

  // The loop's logger: these lines are the loop's, and read as such where its level is set.
  private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);

  /** The pause between two tries of a suspected poison record. */
  private static final Duration RETRY_PAUSE = Duration.ofMillis(50);

  private final String loopName;
  private final GuardedHandler handler;
  private final RecordParking parking;
  private final Duration retryBackoff;
  private final StopSignal stop;

  /**
   * @param backoff the loop's wait before the batch is tried again, for the log lines
   */
  PoisonIsolation(
      GuardedHandler handler, RecordParking parking, Duration backoff, StopSignal stop) {
    this.loopName = handler.loopName();
    this.handler = handler;
    this.parking = parking;
    this.retryBackoff = backoff;
    this.stop = stop;
  }

  /**
   * Handles {@code records} one at a time, in order, parking each that fails {@value
   * ConsumerLoop#POISON_TRIES} times not from an outage.
   *
   * @return empty when every record was handled or parked; when an outage (or a stop) ended the
   *     pass, each partition's first record not yet done, to seek back to
   */
  Optional<Map<TopicPartition, Long>> handleOneByOne(ConsumerRecords<String, byte[]> records)
      throws InterruptedException {
    Map<TopicPartition, Long> firstNotDone = BatchOffsets.first(records);
    for (TopicPartition partition : records.partitions()) {
      for (ConsumerRecord<String, byte[]> record : records.records(partition)) {
        Exception failure = null;
        for (int attempt = 1; attempt <= ConsumerLoop.POISON_TRIES && !stop.stopped(); attempt++) {
          failure = handler.tryHandle(single(partition, record));
          if (failure == null) {
            break;
          }
          if (TransientFailures.isTransient(failure)) {
            log.warn(
                "{} could not handle the record at {}-{}@{} from an outage; trying the batch"
                    + " again in {} ms: {}",
                loopName,
                record.topic(),
                record.partition(),
                record.offset(),
                retryBackoff.toMillis(),
                Echo.cut(failure.toString()));
            return Optional.of(firstNotDone);
          }
          log.debug(
              "{} try {} of the record at {}-{}@{} failed: {}",
              loopName,
              attempt,
              record.topic(),
              record.partition(),
              record.offset(),
              Echo.cut(failure.toString()));
          if (attempt < ConsumerLoop.POISON_TRIES && stop.awaitStop(RETRY_PAUSE)) {
            break;
          }
        }
        if (stop.stopped() || failure != null && !park(record, failure)) {
          return Optional.of(firstNotDone);
        }
        firstNotDone.put(partition, record.offset() + 1);
      }
    }
    return Optional.empty();
  }

  /**
   * Parks a record that kept failing; false when the parking topic did not take it. Any failure to
   * park counts as an outage, whatever it is (the broker away, a missing WRITE grant on the topic):
   * a record is parked or tried again, never passed over. A record too large to park with its value
   * was already sent without it.
   */
  private boolean park(ConsumerRecord<String, byte[]> record, Exception failure)
      throws InterruptedException {
    try {
      parking.park(record, failure);
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      log.warn(
          "{} could not park the record at {}-{}@{} on {}; trying again in {} ms: {}",
          loopName,
          record.topic(),
          record.partition(),
          record.offset(),
          parking.topic(),
          retryBackoff.toMillis(),
          Echo.cut(e.toString()));
      return false;
    }
    log.error(
        "{} could not handle the record at {}-{}@{} (key {}) after {} tries; parked on {}: {}",
        loopName,
        record.topic(),
        record.partition(),
        record.offset(),
        record.key() == null ? null : Echo.of(record.key()),
        ConsumerLoop.POISON_TRIES,
        parking.topic(),
        RecordParking.reasonOf(failure),
        failure);
    return true;
  }

  private static ConsumerRecords<String, byte[]> single(
      TopicPartition partition, ConsumerRecord<String, byte[]> record) {
    return new ConsumerRecords<>(
        Map.of(partition, List.of(record)),
        Map.of(partition, new OffsetAndMetadata(record.offset() + 1)));
  }
}
