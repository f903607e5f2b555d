package dev.ax.dispatcher.run;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.store.StoredTask;
import dev.ax.common.thread.DaemonThreads;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.common.trace.TraceLog;
import dev.ax.dispatcher.store.ClaimedInstance;
import dev.ax.dispatcher.store.RunKey;
import dev.ax.spi.TaskExecutor;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs claimed attempts on a bounded worker pool with a timeout each. The timeout counts from the
 * attempt's start, not its claim: waiting in the queue uses none of it. A watchdog fires at the
 * attempt's deadline: if the attempt has not ended it is settled as TIMEOUT and its worker thread
 * is interrupted ({@code Future.cancel(true)}); the pool itself stays healthy. Whichever of the
 * worker and the watchdog settles first wins; the other does nothing. An attempt still queued when
 * its {@link QueueBound} passes never starts here: it is settled unstarted and given back, the same
 * attempt, so a long queue wait neither times it out nor uses a retry.
 *
 * <p>Run leases: {@link #leased} is what the dispatcher's lease renewer keeps alive, every attempt
 * queued or running here and every attempt settled here until a renewal finds its row moved on
 * ({@link #lost}: recorded, given back, cancelled or taken back). A lost attempt that still runs is
 * interrupted and nothing is recorded for it.
 *
 * <p>Capacity is bounded ({@code threads} running plus {@code queueCapacity} waiting); the caller
 * asks {@link #freeCapacity()} before it claims more, so {@link #submit} never has to refuse.
 *
 * <p>Worker threads end after an idle keep-alive ({@code allowCoreThreadTimeOut}), so an idle pool
 * holds none. The watchdog is one timer thread, the runner's own or one shared by all the
 * dispatcher's pools ({@link Bulkheads}).
 *
 * <p>Parts: {@link Attempt} (what one submitted attempt shares between the threads that may settle
 * it), {@link Ending} (how its run ended), {@link AttemptWatchdog} (its deadline), {@link
 * HeldAttempts} (the attempts held here, in flight or settled, and so leased).
 *
 * <p>Thread-safe.
 */
public final class AttemptRunner implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AttemptRunner.class);

  private final Clock clock;
  private final Consumer<Completion> sink;

  /** In flight (queued or running) and settled awaiting the database: the leased attempts. */
  private final HeldAttempts held;

  private final ThreadPoolExecutor workers;
  private final AttemptWatchdog watchdog;
  private final QueueBound queueBound;
  private volatile boolean stopping;

  /** How long an idle worker thread lives before it ends (a standalone runner's default). */
  public static final Duration DEFAULT_IDLE_KEEP_ALIVE = Duration.ofSeconds(60);

  /** A runner with its own watchdog thread (for a single pool; {@link Bulkheads} shares one). */
  public AttemptRunner(Clock clock, int threads, int queueCapacity, Consumer<Completion> sink) {
    this(clock, threads, queueCapacity, QueueBound.NONE, sink);
  }

  /** A runner with its own watchdog thread whose queued attempts wait at most {@code bound}. */
  public AttemptRunner(
      Clock clock, int threads, int queueCapacity, QueueBound bound, Consumer<Completion> sink) {
    this(
        clock,
        threads,
        queueCapacity,
        DEFAULT_IDLE_KEEP_ALIVE,
        AttemptWatchdog.newTimers(),
        true,
        bound,
        sink);
  }

  /**
   * A runner whose timeouts run on {@code watchdog}, shared with other runners and shut down by its
   * owner, not by this runner.
   *
   * @param idleKeepAlive how long an idle worker thread lives: an idle pool holds no threads
   */
  public AttemptRunner(
      Clock clock,
      int threads,
      int queueCapacity,
      Duration idleKeepAlive,
      ScheduledExecutorService watchdog,
      QueueBound bound,
      Consumer<Completion> sink) {
    this(clock, threads, queueCapacity, idleKeepAlive, watchdog, false, bound, sink);
  }

  private AttemptRunner(
      Clock clock,
      int threads,
      int queueCapacity,
      Duration idleKeepAlive,
      ScheduledExecutorService watchdog,
      boolean ownsWatchdog,
      QueueBound bound,
      Consumer<Completion> sink) {
    if (threads < 1 || queueCapacity < 1) {
      throw new IllegalArgumentException(
          "threads and queueCapacity must be positive: " + threads + ", " + queueCapacity);
    }
    if (idleKeepAlive.isNegative() || idleKeepAlive.isZero()) {
      throw new IllegalArgumentException("idleKeepAlive must be positive: " + idleKeepAlive);
    }
    this.clock = clock;
    this.sink = sink;
    this.queueBound = bound;
    this.held = new HeldAttempts(threads + queueCapacity);
    this.workers =
        new ThreadPoolExecutor(
            threads,
            threads,
            SaturatingMillis.toMillis(idleKeepAlive),
            TimeUnit.MILLISECONDS,
            // Room for every attempt the capacity admits, not only those beyond the threads: the
            // claim loop admits threads + queueCapacity, and a burst submitted while the pool's
            // idle threads have not yet taken their first ones from the queue (or while none is
            // alive) must still fit, or an admitted attempt would be refused after its claim.
            new ArrayBlockingQueue<>(threads + queueCapacity),
            DaemonThreads.numbered("ax-worker"));
    // Idle groups cost no threads: a pool grows to its size under load and shrinks to none.
    this.workers.allowCoreThreadTimeOut(true);
    this.watchdog = new AttemptWatchdog(watchdog, ownsWatchdog);
  }

  /** Worker threads alive now (at most {@code threads}; none once idle for the keep-alive). */
  public int liveThreads() {
    return workers.getPoolSize();
  }

  /**
   * The attempts whose run leases must be kept alive: those queued or running, and those settled
   * whose outcome (or give-back) the database has not been seen to take yet.
   */
  public Set<RunKey> leased() {
    return held.leased();
  }

  /**
   * The row of attempt {@code key} is no longer this dispatcher's (a lease renewal found it
   * recorded, cancelled or taken back): its lease is no longer renewed, and if it still runs or
   * waits here it is interrupted and nothing is recorded for it, since the row is someone else's.
   *
   * @return whether it was still running or queued here (and is now interrupted)
   */
  public boolean lost(RunKey key, String why) {
    boolean interrupted = interrupt(key, why);
    held.lost(key);
    return interrupted;
  }

  /**
   * Stops renewing the leases of the attempts settled at or before {@code cutoffMs} whose outcome
   * the database has still not taken: the caller knows the database answered all along since then,
   * so the recorder dropped them. Their rows are taken back by the reaper once their lease ends.
   *
   * @return the attempts forgotten
   */
  public List<RunKey> forgetSettledBefore(long cutoffMs) {
    return held.forgetSettledBefore(cutoffMs);
  }

  /** Attempts submitted and not yet settled (running or queued). */
  public int inFlight() {
    return held.inFlight();
  }

  /** Attempts this runner can still take without queueing beyond its bound. */
  public int freeCapacity() {
    return held.freeCapacity();
  }

  /** Runs one claimed attempt with {@code executor}; the outcome goes to the sink. */
  public void submit(ClaimedInstance claimed, StoredTask task, TaskExecutor executor) {
    Attempt attempt = Attempt.of(claimed, task, executor);
    held.add(attempt);
    try {
      submitRun(attempt);
    } catch (RejectedExecutionException e) {
      held.release(attempt.key());
      failNow(
          claimed,
          task.spec().group(),
          "dispatcher at capacity: " + e.getMessage(),
          task.spec().retry());
      return;
    }
    if (queueBound.maxWait() != null) {
      watchdog.armQueueBound(attempt, queueBound.maxWait(), this::waitedTooLong);
    }
  }

  /**
   * Queues {@code attempt}'s run. Its future is set before the pool may run it, so its deadline's
   * timer (armed by the worker at its start) always has the run to interrupt; and it is the very
   * runnable the queue holds, which {@link HeldAttempts#settleNeverStarted} relies on.
   */
  private void submitRun(Attempt attempt) {
    FutureTask<Void> run =
        new FutureTask<>(
            () -> {
              if (!attempt.begin() || attempt.settled().get()) {
                return; // given back or interrupted while queued: nothing to run or record
              }
              try (TraceLog fields = attempt.traceLog()) {
                run(attempt);
              }
            },
            null);
    attempt.run().set(run);
    workers.execute(run);
  }

  /**
   * Runs {@code attempt} on this worker thread and settles it unless its watchdog did. Its deadline
   * is set now, at its start.
   */
  private void run(Attempt attempt) {
    attempt.cancelTimer(); // its queue bound: it started
    long startMs = clock.millis();
    attempt.start(startMs);
    watchdog.armDeadline(attempt, this::timedOut);
    Ending ending = Ending.of(attempt);
    if (attempt.settle()) {
      attempt.cancelTimer();
      finish(attempt, ending, startMs);
    }
  }

  /** Settled by its watchdog at the deadline: the run was interrupted. */
  private void timedOut(Attempt attempt) {
    finish(attempt, Ending.timedOut(attempt), attempt.startedAtMs().get());
  }

  /**
   * Its queue bound passed before it started (the watchdog took its start): settles it unstarted
   * and gives it back, unless an interrupt settled it first.
   */
  private void waitedTooLong(Attempt attempt) {
    if (!attempt.settle()) {
      return;
    }
    dequeue(attempt);
    // Leased until its give-back is seen in the database.
    held.settledAwaitingDatabase(attempt.key(), clock.millis());
    try (TraceLog fields = attempt.traceLog()) {
      log.info(
          "{} attempt {} waited {} ms in the queue without starting; given back as the same attempt",
          attempt.claimed().instanceId(),
          attempt.claimed().attempt(),
          SaturatingMillis.toMillis(queueBound.maxWait()));
    }
    queueBound.giveBack().accept(attempt.claimed());
  }

  /**
   * Interrupts attempt {@code key} if it runs (or waits) here and has not settled, and records no
   * outcome for it: its row was settled by someone else (CANCELLED by a CANCEL with interrupt), so
   * an outcome could not be recorded anyway. The executor sees an interrupt, as at a timeout.
   *
   * @return whether this runner had the attempt unsettled
   */
  public boolean interrupt(RunKey key, String why) {
    Attempt attempt = held.get(key);
    if (attempt == null || !attempt.settle()) {
      return false;
    }
    attempt.cancelTimer();
    Future<?> run = attempt.run().get();
    if (run != null) {
      run.cancel(true);
    }
    dequeue(attempt);
    held.release(key);
    try (TraceLog fields = attempt.traceLog()) {
      log.info("{} attempt {} interrupted: {}", key.instanceId(), key.attempt(), why);
    }
    return true;
  }

  /**
   * Takes a settled attempt's run out of the queue if it still waits there: released from the
   * count, it must not keep a queue slot either, or the queue would refuse an attempt the count
   * admits.
   */
  private void dequeue(Attempt attempt) {
    if (attempt.run().get() instanceof Runnable queued) {
      workers.remove(queued);
    }
  }

  /** Timers queued for attempts' deadlines; for tests. */
  int pendingTimers() {
    return watchdog.pendingTimers();
  }

  /** Records an attempt that could not run at all (task or executor missing). */
  public void fail(ClaimedInstance claimed, String group, String error) {
    failNow(claimed, group, error, null);
  }

  /**
   * Records an attempt that did not run as FAILED now.
   *
   * @param retryPolicy the task's, or null when the attempt cannot be retried at all
   */
  private void failNow(
      ClaimedInstance claimed, String group, String error, RetryPolicy retryPolicy) {
    sink.accept(Completion.notRun(claimed, group, error, clock.millis(), retryPolicy));
  }

  private void finish(Attempt attempt, Ending ending, long startMs) {
    ClaimedInstance claimed = attempt.claimed();
    if (stopping && ending.status() == InstanceStatus.TIMEOUT) {
      // Interrupted by shutdown, not by its deadline: leave the row RUNNING for the reaper.
      held.release(attempt.key());
      log.info(
          "{} attempt {} interrupted by shutdown; left for recovery",
          claimed.instanceId(),
          claimed.attempt());
      return;
    }
    // Leased until its outcome is seen recorded (no renewal misses it: see HeldAttempts).
    held.settledAwaitingDatabase(attempt.key(), clock.millis());
    sink.accept(Completion.ran(attempt, ending, startMs, clock.millis()));
  }

  /**
   * Stops taking work, lets running attempts finish within {@code grace}, then interrupts the rest:
   * their rows stay RUNNING and are recovered once their lease expires, as after a crash (they did
   * start, so the next claim starts the next attempt).
   *
   * @return the attempts still queued when the grace ran out: claimed but never started, settled
   *     here so that nothing records them. The caller releases their rows.
   */
  public List<ClaimedInstance> shutdown(Duration grace) {
    workers.shutdown();
    List<Runnable> dequeued = List.of();
    try {
      if (!workers.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        stopping = true;
        dequeued = workers.shutdownNow();
        log.warn(
            "Shutdown grace of {} ms over: {} queued attempt(s) not started, running ones interrupted",
            grace.toMillis(),
            dequeued.size());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopping = true; // what the interrupt stops is left for recovery, not recorded as a timeout
      dequeued = workers.shutdownNow();
    }
    watchdog.shutdown();
    return held.settleNeverStarted(dequeued);
  }

  /** Stops at once; attempts still queued are dropped unrecorded (see {@link #shutdown}). */
  @Override
  public void close() {
    shutdown(Duration.ZERO);
  }
}
