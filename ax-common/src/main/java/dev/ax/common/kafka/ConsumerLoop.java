package dev.ax.common.kafka;

import dev.ax.common.contract.Echo;
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
 * <p>When the handler throws, what it threw decides (see {@link TransientFailures}):
 *
 * <ul>
 *   <li>An outage (the database is away, the broker timed out): the loop seeks back to the start of
 *       the batch, waits {@code retryBackoff} and tries the same records again, so the stage pauses
 *       and resumes by itself. Every {@value #OUTAGES_BEFORE_SINGLES}th time in a row it tries the
 *       batch one record at a time instead, in case the batch as a whole is what fails (a statement
 *       too large for the server reads as a broken connection); a transient failure of one record
 *       only ends that pass. An outage never parks a record.
 *   <li>Anything else may be a poison record: the loop handles the batch's records one at a time,
 *       in order. A record that still fails, {@value #POISON_TRIES} times in a row and not from an
 *       outage, is handed to its {@link RecordParking} (the rejected topic for ingest, the stage's
 *       parking topic otherwise), logged once at ERROR, counted, and passed over. The batch's
 *       offsets are committed when every record is handled or parked: no batch is tried forever. A
 *       record the parking topic does not take is not passed over: the pass ends as for an outage,
 *       and the batch is tried again after {@code retryBackoff}.
 * </ul>
 *
 * Handlers must therefore tolerate seeing a record again (they do: every write is idempotent or
 * conditional), and may see the records of a failed batch again one at a time.
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
    ASYNC,
    /**
     * Commit nothing: the loop reads every partition by assignment, from the end ({@link
     * #everyPartitionFromEnd}).
     */
    NONE
  }

  private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

  /** Tries of one record, failing not from an outage, before it is parked. */
  public static final int POISON_TRIES = 3;

  /** Outages of one batch in a row after which it is tried one record at a time. */
  public static final int OUTAGES_BEFORE_SINGLES = 3;

  /** How often an assigning loop looks for partitions added to its topic. */
  private static final Duration PARTITION_REFRESH = Duration.ofSeconds(30);

  /** How long {@link #start()} of an assigning loop waits for its end offsets. */
  private static final Duration POSITION_TIMEOUT = Duration.ofSeconds(10);

  /** The pause between two tries of a suspected poison record. */
  private static final Duration POISON_RETRY_PAUSE = Duration.ofMillis(50);

  /** How often an {@link CommitMode#ASYNC} loop commits what it handled, at most. */
  public static final Duration ASYNC_COMMIT_INTERVAL = Duration.ofMillis(100);

  private final String name;
  private final KafkaConsumer<String, byte[]> consumer;
  private final Collection<String> topics;
  private final BatchHandler handler;
  private final Duration retryBackoff;
  private final CommitMode commitMode;
  private final RecordParking parking;

  /** Offsets handled but perhaps not committed yet (ASYNC); loop thread only. */
  private final Map<TopicPartition, OffsetAndMetadata> handled = new HashMap<>();

  /** ASYNC: whether {@link #handled} holds offsets not sent in a commit yet; loop thread only. */
  private boolean uncommitted;

  private long lastAsyncCommitNanos = System.nanoTime();

  /** NONE: when the loop last looked for new partitions; loop thread only. */
  private long lastPartitionRefreshNanos = System.nanoTime();

  private final Thread thread;
  private final CountDownLatch stopping = new CountDownLatch(1);
  private volatile boolean running = true;

  public ConsumerLoop(
      String name,
      KafkaConsumer<String, byte[]> consumer,
      Collection<String> topics,
      BatchHandler handler,
      Duration retryBackoff,
      RecordParking parking) {
    this(name, consumer, topics, handler, retryBackoff, CommitMode.SYNC, parking);
  }

  /**
   * @param retryBackoff the wait before a batch is tried again after an outage
   * @param parking where records that keep failing go
   */
  public ConsumerLoop(
      String name,
      KafkaConsumer<String, byte[]> consumer,
      Collection<String> topics,
      BatchHandler handler,
      Duration retryBackoff,
      CommitMode commitMode,
      RecordParking parking) {
    this.name = name;
    this.consumer = consumer;
    this.topics = topics;
    this.handler = handler;
    this.retryBackoff = retryBackoff;
    this.commitMode = commitMode;
    this.parking = java.util.Objects.requireNonNull(parking, "parking");
    this.thread = new Thread(this::run, name);
  }

  /**
   * A loop that reads every partition of {@code topic} by assignment, not as a member of a group,
   * and commits nothing: each process that runs one sees every record written after its {@link
   * #start()}, whatever other processes read. For a stage whose every node must see every record
   * while it runs, and which rebuilds what came before from the database (the ticker's
   * announcements). The consumer must have no group id. Partitions added to the topic later are
   * read from their beginning once the loop sees them, within {@code PARTITION_REFRESH}.
   */
  public static ConsumerLoop everyPartitionFromEnd(
      String name,
      KafkaConsumer<String, byte[]> consumer,
      String topic,
      BatchHandler handler,
      Duration retryBackoff,
      RecordParking parking) {
    return new ConsumerLoop(
        name, consumer, List.of(topic), handler, retryBackoff, CommitMode.NONE, parking);
  }

  /**
   * Starts the loop's thread. An assigning loop ({@link #everyPartitionFromEnd}) first takes every
   * partition and fixes its position at the current end, on the caller's thread: every record
   * written after this returns is read. If the broker does not answer within {@code
   * POSITION_TIMEOUT}, the positions are fixed at the first poll instead (logged).
   */
  public void start() {
    if (commitMode == CommitMode.NONE) {
      assignFromEnd();
    }
    thread.start();
  }

  private void assignFromEnd() {
    List<TopicPartition> partitions = partitionsOfTopics();
    consumer.assign(partitions);
    consumer.seekToEnd(partitions);
    try {
      for (TopicPartition partition : partitions) {
        consumer.position(partition, POSITION_TIMEOUT);
      }
      log.info("{} reads {} partition(s) from their end", name, partitions.size());
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      log.warn(
          "{} could not read the end offsets of {} within {} ms; they are fixed at the first"
              + " poll",
          name,
          partitions,
          POSITION_TIMEOUT.toMillis());
    }
  }

  private List<TopicPartition> partitionsOfTopics() {
    List<TopicPartition> partitions = new java.util.ArrayList<>();
    for (String topic : topics) {
      for (var info : consumer.partitionsFor(topic, POSITION_TIMEOUT)) {
        partitions.add(new TopicPartition(topic, info.partition()));
      }
    }
    return partitions;
  }

  /** NONE: takes partitions added to the topic since the last look, from their beginning. */
  private void refreshPartitionsIfDue() {
    long nowNanos = System.nanoTime();
    if (nowNanos - lastPartitionRefreshNanos < PARTITION_REFRESH.toNanos()) {
      return;
    }
    lastPartitionRefreshNanos = nowNanos;
    try {
      List<TopicPartition> added = new java.util.ArrayList<>(partitionsOfTopics());
      added.removeAll(consumer.assignment());
      if (added.isEmpty()) {
        return;
      }
      List<TopicPartition> all = new java.util.ArrayList<>(consumer.assignment());
      all.addAll(added);
      consumer.assign(all);
      consumer.seekToBeginning(added);
      log.info("{} reads new partition(s) {} from their beginning", name, added);
    } catch (org.apache.kafka.common.KafkaException e) {
      log.debug("{} could not look for new partitions: {}", name, e.toString());
    }
  }

  private void run() {
    if (commitMode == CommitMode.NONE) {
      runLoop();
      return;
    }
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
    runLoop();
  }

  private void runLoop() {
    int outagesInARow = 0;
    try {
      while (running) {
        if (commitMode == CommitMode.NONE) {
          refreshPartitionsIfDue();
        }
        handler.beforePoll(consumer);
        ConsumerRecords<String, byte[]> records = consumer.poll(POLL_TIMEOUT);
        if (records.isEmpty()) {
          commitAsyncIfDue();
          continue;
        }
        Exception failure = tryHandle(records);
        if (failure == null) {
          commitQuietly(nextOffsets(records));
          if (outagesInARow > 0) {
            log.info("{} recovered after {} failed attempt(s)", name, outagesInARow);
          }
          outagesInARow = 0;
          continue;
        }
        boolean outage = TransientFailures.isTransient(failure);
        if (outage) {
          outagesInARow++;
        }
        if (!outage || outagesInARow % OUTAGES_BEFORE_SINGLES == 0) {
          if (outage) {
            log.warn(
                "{} could not handle {} record(s) {} times in a row ({}); trying them one at a"
                    + " time",
                name,
                records.count(),
                outagesInARow,
                Echo.cut(failure.toString()));
          } else {
            log.warn(
                "{} could not handle {} record(s), not from an outage ({}); handling them one at"
                    + " a time to find the one(s) that fail",
                name,
                records.count(),
                Echo.cut(failure.toString()));
          }
          if (handleOneByOne(records)) {
            commitQuietly(nextOffsets(records));
            outagesInARow = 0;
            continue;
          }
        } else {
          log.warn(
              "{} could not handle {} record(s), retrying in {} ms (attempt {}): {}",
              name,
              records.count(),
              retryBackoff.toMillis(),
              outagesInARow,
              Echo.cut(failure.toString()));
          seekTo(firstOffsets(records));
        }
        if (stopping.await(retryBackoff.toMillis(), TimeUnit.MILLISECONDS)) {
          return;
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

  /**
   * Hands {@code records} to the handler.
   *
   * @return null when it handled them, else what it threw
   * @throws InterruptedException when the thread was interrupted (the loop stops)
   */
  private Exception tryHandle(ConsumerRecords<String, byte[]> records) throws InterruptedException {
    try {
      handler.handle(records);
      return null;
    } catch (WakeupException e) {
      throw e;
    } catch (InterruptedException e) {
      throw e;
    } catch (org.apache.kafka.common.errors.InterruptException e) {
      throw new InterruptedException(name + " interrupted");
    } catch (Exception e) {
      return e;
    }
  }

  /**
   * Handles {@code records} one at a time, in order, parking each that fails {@value #POISON_TRIES}
   * times not from an outage.
   *
   * @return true when every record was handled or parked; false when an outage (or a stop) ended
   *     the pass, after seeking every partition back to its first record not yet done
   */
  private boolean handleOneByOne(ConsumerRecords<String, byte[]> records)
      throws InterruptedException {
    Map<TopicPartition, Long> firstNotDone = firstOffsets(records);
    for (TopicPartition partition : records.partitions()) {
      for (ConsumerRecord<String, byte[]> record : records.records(partition)) {
        Exception failure = null;
        for (int attempt = 1; attempt <= POISON_TRIES && running; attempt++) {
          failure = tryHandle(single(partition, record));
          if (failure == null) {
            break;
          }
          if (TransientFailures.isTransient(failure)) {
            log.warn(
                "{} could not handle the record at {}-{}@{} from an outage; trying the batch"
                    + " again in {} ms: {}",
                name,
                record.topic(),
                record.partition(),
                record.offset(),
                retryBackoff.toMillis(),
                Echo.cut(failure.toString()));
            seekTo(firstNotDone);
            return false;
          }
          log.debug(
              "{} try {} of the record at {}-{}@{} failed: {}",
              name,
              attempt,
              record.topic(),
              record.partition(),
              record.offset(),
              Echo.cut(failure.toString()));
          if (attempt < POISON_TRIES
              && stopping.await(POISON_RETRY_PAUSE.toMillis(), TimeUnit.MILLISECONDS)) {
            break;
          }
        }
        if (!running) {
          seekTo(firstNotDone);
          return false;
        }
        if (failure != null && !park(record, failure)) {
          seekTo(firstNotDone);
          return false;
        }
        firstNotDone.put(partition, record.offset() + 1);
      }
    }
    return true;
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
          name,
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
        name,
        record.topic(),
        record.partition(),
        record.offset(),
        record.key() == null ? null : Echo.of(record.key()),
        POISON_TRIES,
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

  /** Commits; a failed commit (a rebalance meanwhile) only means some records come again. */
  private void commitQuietly(Map<TopicPartition, OffsetAndMetadata> offsets) {
    try {
      commit(offsets);
    } catch (WakeupException e) {
      throw e;
    } catch (org.apache.kafka.common.KafkaException e) {
      log.warn(
          "{} could not commit {} partition(s); their records may be handled again: {}",
          name,
          offsets.size(),
          e.toString());
    }
  }

  private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    if (commitMode == CommitMode.NONE) {
      return;
    }
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

  /** Seeks each partition still assigned to its offset; a revoked one is someone else's now. */
  private void seekTo(Map<TopicPartition, Long> offsets) {
    var assigned = consumer.assignment();
    offsets.forEach(
        (partition, offset) -> {
          if (assigned.contains(partition)) {
            consumer.seek(partition, offset);
          }
        });
  }

  private static Map<TopicPartition, Long> firstOffsets(ConsumerRecords<String, byte[]> records) {
    Map<TopicPartition, Long> offsets = new HashMap<>();
    for (TopicPartition partition : records.partitions()) {
      offsets.put(partition, records.records(partition).get(0).offset());
    }
    return offsets;
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
