package dev.ax.common.kafka;

import dev.ax.common.thread.DaemonThreads;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
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
 * <p>A loop never ends silently. A refusal by the broker (an authorization or authentication error
 * from the poll or from the handler's own clients, as during an ACL change) does not end it: it
 * waits with a bounded back-off ({@link BrokerRefusals}) and polls again, and its {@link
 * LoopWatcher} hears of the refusal (the process reports not ready, with the reason) and of the
 * recovery. Any other error that escapes the poll, handle, commit cycle ends the thread: it is
 * logged at ERROR with the loop's name and the cause, and the watcher hears that the loop died (a
 * stage's process then exits non-zero; see {@code StageMain}). A stop by {@link #close()} is no
 * death.
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
 * <p>Its parts, each in its own class: how it comes by its partitions ({@link GroupAssignment}, or
 * {@link FromEndAssignment} for {@link #everyPartitionFromEnd}), how it commits ({@link
 * OffsetCommits}), how a failed batch is tried next ({@link OutageStreak}), and the one-at-a-time
 * pass that parks poison records ({@link PoisonIsolation}), all three driven for one batch by
 * {@link BatchAttempts}. Pausing and resuming partitions is the handler's, in {@link
 * BatchHandler#beforePoll}. This class owns the thread and the poll, handle, commit cycle.
 *
 * <p>Threading: the consumer is touched only by the loop's own thread (and, before it starts, by
 * {@link #start()} on the caller's); {@link #close()} may be called from any thread and wakes it.
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

  /** How often an {@link CommitMode#ASYNC} loop commits what it handled, at most. */
  public static final Duration ASYNC_COMMIT_INTERVAL = Duration.ofMillis(100);

  private final String name;
  private final KafkaConsumer<String, byte[]> consumer;
  private final BatchHandler handler;
  private final Duration retryBackoff;
  private final StopSignal stop = new StopSignal();
  private final LoopWatcher watcher;

  /** The parts, each used on the loop thread only (see their javadoc). */
  private final OffsetCommits commits;

  private final PartitionAssignment assignment;
  private final BrokerRefusals refusals;
  private final BatchAttempts attempts;

  private final Thread thread;

  /**
   * A loop that is a member of the consumer group of {@code consumer}, whose refusals and death
   * {@code watcher} hears (see the class comment; {@link LoopWatcher#LOG_ONLY} only logs them).
   *
   * @param retryBackoff the wait before a batch is tried again after an outage
   * @param commitMode how it commits; {@link CommitMode#NONE} is for {@link #everyPartitionFromEnd}
   *     only
   * @param parking where records that keep failing go
   * @throws IllegalArgumentException for {@link CommitMode#NONE}
   */
  public ConsumerLoop(
      String name,
      KafkaConsumer<String, byte[]> consumer,
      Collection<String> topics,
      BatchHandler handler,
      Duration retryBackoff,
      CommitMode commitMode,
      RecordParking parking,
      LoopWatcher watcher) {
    this(
        name,
        consumer,
        Subscription.of(topics),
        handler,
        retryBackoff,
        commitMode,
        parking,
        watcher);
  }

  /** As above, reading what {@code subscription} names (a pattern, say). */
  public ConsumerLoop(
      String name,
      KafkaConsumer<String, byte[]> consumer,
      Subscription subscription,
      BatchHandler handler,
      Duration retryBackoff,
      CommitMode commitMode,
      RecordParking parking,
      LoopWatcher watcher) {
    this(
        name,
        consumer,
        handler,
        retryBackoff,
        groupCommits(name, commitMode),
        parking,
        watcher,
        commits -> new GroupAssignment(name, subscription, handler, commits));
  }

  private static CommitMode groupCommits(String name, CommitMode commitMode) {
    if (commitMode == CommitMode.NONE) {
      throw new IllegalArgumentException(
          name + ": a loop that commits nothing reads from the end (everyPartitionFromEnd)");
    }
    return commitMode;
  }

  /**
   * @param assignment how the loop comes by its partitions, given how it commits
   */
  private ConsumerLoop(
      String name,
      KafkaConsumer<String, byte[]> consumer,
      BatchHandler handler,
      Duration retryBackoff,
      CommitMode commitMode,
      RecordParking parking,
      LoopWatcher watcher,
      Function<OffsetCommits, PartitionAssignment> assignment) {
    this.name = name;
    this.watcher = Objects.requireNonNull(watcher, "watcher");
    this.refusals = new BrokerRefusals(name, watcher, retryBackoff);
    this.consumer = consumer;
    this.handler = handler;
    this.retryBackoff = retryBackoff;
    this.commits = new OffsetCommits(name, consumer, commitMode);
    this.assignment = assignment.apply(commits);
    GuardedHandler guarded = new GuardedHandler(name, handler);
    this.attempts =
        new BatchAttempts(
            name,
            consumer,
            guarded,
            commits,
            refusals,
            new OutageStreak(OUTAGES_BEFORE_SINGLES),
            new PoisonIsolation(
                guarded, Objects.requireNonNull(parking, "parking"), retryBackoff, stop),
            retryBackoff);
    this.thread = new Thread(this::run, name);
  }

  /**
   * A loop that reads every partition of {@code topic} by assignment, not as a member of a group,
   * and commits nothing: each process that runs one sees every record written after its {@link
   * #start()}, whatever other processes read. For a stage whose every node must see every record
   * while it runs, and which rebuilds what came before from the database (the ticker's
   * announcements). The consumer must have no group id. Partitions added to the topic later are
   * read from their beginning once the loop sees them, within {@code
   * FromEndAssignment.PARTITION_REFRESH}.
   *
   * <p>If the broker does not answer during {@link #start()}, the loop takes the partitions, from
   * their end, once it does, and then runs {@code positionedLate} on its thread: what was written
   * in between was not read, and the stage reads it from the database instead. {@code watcher}
   * hears of the loop's refusals and death.
   */
  public static ConsumerLoop everyPartitionFromEnd(
      String name,
      KafkaConsumer<String, byte[]> consumer,
      String topic,
      BatchHandler handler,
      Duration retryBackoff,
      RecordParking parking,
      Runnable positionedLate,
      LoopWatcher watcher) {
    return new ConsumerLoop(
        name,
        consumer,
        handler,
        retryBackoff,
        CommitMode.NONE,
        parking,
        watcher,
        commits -> new FromEndAssignment(name, List.of(topic), positionedLate));
  }

  /**
   * Starts the loop's thread. An assigning loop ({@link #everyPartitionFromEnd}) first takes every
   * partition and fixes its position at the current end, on the caller's thread: every record
   * written after this returns is read. If the broker does not answer within {@code
   * FromEndAssignment.POSITION_TIMEOUT}, this returns anyway and the loop's thread takes them once
   * it does (logged; see {@link #everyPartitionFromEnd}).
   */
  public void start() {
    assignment.beforeStart(consumer);
    thread.start();
  }

  private void run() {
    Throwable death = null;
    try {
      assignment.join(consumer);
      pollUntilStopped();
    } catch (WakeupException e) {
      death = stop.stopped() ? null : e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      death = stop.stopped() ? null : e;
    } catch (RuntimeException | Error e) {
      death = e;
    } finally {
      try {
        closeConsumer();
      } finally {
        if (death == null || stop.stopped()) {
          log.info("{} stopped", name);
        } else {
          // Nothing reads this loop's partitions any more: the process must not look healthy.
          log.error("{} stopped by an unexpected error; it reads nothing more", name, death);
          watcher.died(name, death);
        }
      }
    }
  }

  /**
   * Polls and handles until the loop is asked to stop. A refusal by the broker (authorization or
   * authentication) does not end it: the loop waits, with back-off, and polls again ({@link
   * BrokerRefusals}).
   */
  private void pollUntilStopped() throws InterruptedException {
    while (!stop.stopped()) {
      Duration wait;
      try {
        wait = pollOnce();
      } catch (AuthorizationException | AuthenticationException e) {
        wait = refusals.refused(e);
      }
      if (!wait.isZero() && stop.awaitStop(wait)) {
        return;
      }
    }
  }

  /**
   * One poll, and the handling of what it returned.
   *
   * @return how long to wait before the next poll (zero: poll again at once)
   */
  private Duration pollOnce() throws InterruptedException {
    if (!assignment.beforePoll(consumer)) {
      return retryBackoff;
    }
    handler.beforePoll(consumer);
    ConsumerRecords<String, byte[]> records = consumer.poll(POLL_TIMEOUT);
    if (records.isEmpty()) {
      refusals.worked();
      commits.commitIfDue();
      return Duration.ZERO;
    }
    return attempts.handle(records);
  }

  /** Commits what was handled and closes the consumer; a failure of either is logged. */
  private void closeConsumer() {
    try {
      commits.commitEverythingHandled();
      consumer.close(Duration.ofSeconds(5));
    } catch (RuntimeException e) {
      log.warn("{} did not close its consumer cleanly: {}", name, e.toString());
    }
  }

  /** Stops polling, lets the current batch finish, closes the consumer. */
  @Override
  public void close() {
    stop.stop();
    consumer.wakeup();
    DaemonThreads.awaitEnd(thread, Duration.ofSeconds(30));
  }
}
