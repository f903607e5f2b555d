package dev.ax.common.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer thread that hands each polled batch to a {@link BatchHandler} and commits the
 * batch's offsets only after the handler returned: at-least-once, with the database (whose writes
 * are idempotent or conditional) deciding what a redelivery does.
 *
 * <p>When the handler throws (the database is away, the broker refused a send) the loop seeks back
 * to the start of the batch, waits {@code retryBackoff} and tries the same records again, so an
 * outage pauses the stage and it resumes by itself.
 *
 * <p>{@link CommitMode#ASYNC} commits without waiting for the broker, for a stage whose handling of
 * a redelivered record is harmless (the dispatcher: a second claim wins nothing), so that the
 * commit's round trip is not on the path of the next batch; and it commits at most once every
 * {@link #ASYNC_COMMIT_INTERVAL} (and on the first poll after it, records or not), not after every
 * batch: under load a loop polls a hundred times a second or more, and each commit is a write the
 * broker's group coordinator makes. A crash then hands at most that much more work to a redelivery,
 * which such a stage shrugs off. What was handled is still committed synchronously when partitions
 * are revoked and when the loop stops.
 *
 * <p>Threading: the consumer is touched only by the loop's own thread; {@link #close()} may be
 * called from any thread and wakes it.
 */
public final class ConsumerLoop implements AutoCloseable {

  /** Handles one batch. Throwing means "not done, give me the same records again later". */
  public interface BatchHandler {
    void handle(ConsumerRecords<String, byte[]> records) throws Exception;

    /** Called on the loop thread before each poll: pause or resume partitions here. */
    default void beforePoll(KafkaConsumer<String, byte[]> consumer) {}

    /** Called on the loop thread when partitions are revoked, before their offsets move. */
    default void onRevoked(Collection<TopicPartition> partitions) {}

    /** Called on the loop thread when partitions are assigned. */
    default void onAssigned(Collection<TopicPartition> partitions) {}
  }

  /** How the offsets of a handled batch are committed. */
  public enum CommitMode {
    /** Wait for the broker before polling again. */
    SYNC,
    /** Send the commit and poll on; see the class comment. */
    ASYNC
  }

  private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

  /** How often an {@link CommitMode#ASYNC} loop commits what it handled, at most. */
  public static final Duration ASYNC_COMMIT_INTERVAL = Duration.ofMillis(100);

  private final String name;
  private final KafkaConsumer<String, byte[]> consumer;
  private final Collection<String> topics;
  private final BatchHandler handler;
  private final Duration retryBackoff;
  private final CommitMode commitMode;

  /** Offsets handled but perhaps not committed yet (ASYNC); loop thread only. */
  private final Map<TopicPartition, OffsetAndMetadata> handled = new HashMap<>();

  /** ASYNC: whether {@link #handled} holds offsets not sent in a commit yet; loop thread only. */
  private boolean uncommitted;

  private long lastAsyncCommitNanos = System.nanoTime();

  private final Thread thread;
  private final CountDownLatch stopping = new CountDownLatch(1);
  private volatile boolean running = true;

  public ConsumerLoop(
      String name,
      KafkaConsumer<String, byte[]> consumer,
      Collection<String> topics,
      BatchHandler handler,
      Duration retryBackoff) {
    this(name, consumer, topics, handler, retryBackoff, CommitMode.SYNC);
  }

  public ConsumerLoop(
      String name,
      KafkaConsumer<String, byte[]> consumer,
      Collection<String> topics,
      BatchHandler handler,
      Duration retryBackoff,
      CommitMode commitMode) {
    this.name = name;
    this.consumer = consumer;
    this.topics = topics;
    this.handler = handler;
    this.retryBackoff = retryBackoff;
    this.commitMode = commitMode;
    this.thread = new Thread(this::run, name);
  }

  public void start() {
    thread.start();
  }

  private void run() {
    consumer.subscribe(
        topics,
        new ConsumerRebalanceListener() {
          @Override
          public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            handler.onRevoked(partitions);
            commitHandled(partitions);
          }

          @Override
          public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            log.info("{} assigned {}", name, partitions);
            handler.onAssigned(partitions);
          }
        });
    int consecutiveFailures = 0;
    try {
      while (running) {
        handler.beforePoll(consumer);
        ConsumerRecords<String, byte[]> records = consumer.poll(POLL_TIMEOUT);
        if (records.isEmpty()) {
          commitAsyncIfDue();
          continue;
        }
        try {
          handler.handle(records);
          commit(nextOffsets(records));
          if (consecutiveFailures > 0) {
            log.info("{} recovered after {} failed attempt(s)", name, consecutiveFailures);
          }
          consecutiveFailures = 0;
        } catch (WakeupException e) {
          throw e;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        } catch (Exception e) {
          consecutiveFailures++;
          log.warn(
              "{} could not handle {} record(s), retrying in {} ms (attempt {}): {}",
              name,
              records.count(),
              retryBackoff.toMillis(),
              consecutiveFailures,
              e.toString());
          seekToBatchStart(records);
          if (stopping.await(retryBackoff.toMillis(), TimeUnit.MILLISECONDS)) {
            return;
          }
        }
      }
    } catch (WakeupException e) {
      if (running) {
        throw e;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException | Error e) {
      log.error("{} stopped by an unexpected error", name, e);
    } finally {
      commitHandled(List.copyOf(handled.keySet()));
      consumer.close(Duration.ofSeconds(5));
      log.info("{} stopped", name);
    }
  }

  private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    if (commitMode == CommitMode.SYNC) {
      consumer.commitSync(offsets);
      return;
    }
    handled.putAll(offsets);
    uncommitted = true;
    commitAsyncIfDue();
  }

  /** ASYNC: sends what was handled if the last commit is {@link #ASYNC_COMMIT_INTERVAL} old. */
  private void commitAsyncIfDue() {
    long nowNanos = System.nanoTime();
    if (!uncommitted || nowNanos - lastAsyncCommitNanos < ASYNC_COMMIT_INTERVAL.toNanos()) {
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
            log.debug("{} async offset commit failed: {}", name, error.toString());
          }
        });
  }

  /** ASYNC: commits, and waits for, what was handled on {@code partitions}. Loop thread only. */
  private void commitHandled(Collection<TopicPartition> partitions) {
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
          name,
          offsets.size(),
          e.toString());
    }
  }

  private void seekToBatchStart(ConsumerRecords<String, byte[]> records) {
    for (TopicPartition partition : records.partitions()) {
      long first = records.records(partition).get(0).offset();
      consumer.seek(partition, first);
    }
  }

  private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(
      ConsumerRecords<String, byte[]> records) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (TopicPartition partition : records.partitions()) {
      var list = records.records(partition);
      ConsumerRecord<String, byte[]> last = list.get(list.size() - 1);
      offsets.put(partition, new OffsetAndMetadata(last.offset() + 1));
    }
    return offsets;
  }

  /** Stops polling, lets the current batch finish, closes the consumer. */
  @Override
  public void close() {
    running = false;
    stopping.countDown();
    consumer.wakeup();
    try {
      thread.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
