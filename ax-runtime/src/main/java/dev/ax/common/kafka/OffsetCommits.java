package dev.ax.common.kafka;

import dev.ax.common.kafka.ConsumerLoop.CommitMode;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the offsets of the batches a {@link ConsumerLoop} handled, as its {@link CommitMode}
 * says: {@link CommitMode#SYNC} waits for the broker after each batch; {@link CommitMode#ASYNC}
 * keeps what was handled and sends it without waiting, at most once every {@link
 * ConsumerLoop#ASYNC_COMMIT_INTERVAL} (and at the first idle poll after that), but commits and
 * waits for a partition's offsets when it is handed over and for all of them when the loop stops;
 * {@link CommitMode#NONE} commits nothing.
 *
 * <p>A commit that fails only means some records are handled again, which every handler tolerates:
 * it is logged, never thrown (but for a wakeup, which stops the loop).
 *
 * <p>Not thread-safe: the loop thread only. The async commit's callback runs there too, inside a
 * later poll, and so does the rebalance listener that calls {@link #commitHandOver}.
 */
final class OffsetCommits {

  // The loop's logger: these lines are the loop's, and read as such where its level is set.
  private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);

  private final String loopName;
  private final Consumer<String, byte[]> consumer;
  private final CommitMode mode;

  /** Offsets handled but perhaps not committed yet (ASYNC). */
  private final Map<TopicPartition, OffsetAndMetadata> handled = new HashMap<>();

  /** ASYNC: whether {@link #handled} holds offsets not sent in a commit yet. */
  private boolean uncommitted;

  private long lastAsyncCommitNanos = System.nanoTime();

  OffsetCommits(String loopName, Consumer<String, byte[]> consumer, CommitMode mode) {
    this.loopName = loopName;
    this.consumer = consumer;
    this.mode = mode;
  }

  /** Commits a handled batch's offsets; a failed commit (a rebalance meanwhile) is logged. */
  void commitBatch(Map<TopicPartition, OffsetAndMetadata> offsets) {
    try {
      commit(offsets);
    } catch (WakeupException e) {
      throw e;
    } catch (KafkaException e) {
      log.warn(
          "{} could not commit {} partition(s); their records may be handled again: {}",
          loopName,
          offsets.size(),
          e.toString());
    }
  }

  private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    if (mode == CommitMode.NONE) {
      return;
    }
    if (mode == CommitMode.SYNC) {
      consumer.commitSync(offsets);
      return;
    }
    handled.putAll(offsets);
    uncommitted = true;
    commitIfDue();
  }

  /** ASYNC: sends what was handled if the last commit is {@code ASYNC_COMMIT_INTERVAL} old. */
  void commitIfDue() {
    long nowNanos = System.nanoTime();
    if (!uncommitted
        || nowNanos - lastAsyncCommitNanos < ConsumerLoop.ASYNC_COMMIT_INTERVAL.toNanos()) {
      return;
    }
    uncommitted = false;
    lastAsyncCommitNanos = nowNanos;
    if (handled.isEmpty()) {
      return; // committed on a hand-over meanwhile
    }
    consumer.commitAsync(
        new HashMap<>(handled),
        (committed, error) -> {
          // Runs on the loop thread, inside a later poll.
          if (error != null) {
            // Sent again at the next interval; at worst some records are handled again.
            uncommitted = true;
            log.debug("{} async offset commit failed: {}", loopName, error.toString());
          }
        });
  }

  /** ASYNC: commits, and waits for, what was handled on {@code partitions}. */
  void commitHandOver(Collection<TopicPartition> partitions) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (TopicPartition partition : partitions) {
      OffsetAndMetadata offset = handled.remove(partition);
      if (offset != null) {
        offsets.put(partition, offset);
      }
    }
    if (offsets.isEmpty()) {
      return;
    }
    try {
      consumer.commitSync(offsets);
    } catch (RuntimeException e) {
      log.warn(
          "{} could not commit {} partition(s) on hand-over; their last records may be handled"
              + " again: {}",
          loopName,
          offsets.size(),
          e.toString());
    }
  }

  /** ASYNC: commits, and waits for, everything handled; for the loop's stop. */
  void commitEverythingHandled() {
    commitHandOver(List.copyOf(handled.keySet()));
  }
}
