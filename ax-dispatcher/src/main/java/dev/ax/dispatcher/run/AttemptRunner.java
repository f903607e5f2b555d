package dev.ax.dispatcher.run;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.ClaimedInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.thread.DaemonThreads;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.common.trace.TraceLog;
import dev.ax.dispatcher.executor.AttemptContext;
import dev.ax.dispatcher.store.RunKey;
import dev.ax.spi.ExecutionResult;
import dev.ax.spi.TaskExecutor;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs claimed attempts on a bounded worker pool with a timeout each. A watchdog fires at the
 * attempt's deadline: if the attempt has not ended it is settled as TIMEOUT and its worker thread
 * is interrupted ({@code Future.cancel(true)}); the pool itself stays healthy. Whichever of the
 * worker and the watchdog settles first wins; the other does nothing.
 *
 * <p>Capacity is bounded ({@code threads} running plus {@code queueCapacity} waiting); the caller
 * asks {@link #freeCapacity()} before it claims more, so {@link #submit} never has to refuse.
 *
 * <p>Worker threads end after an idle keep-alive ({@code allowCoreThreadTimeOut}), so an idle pool
 * holds none. The watchdog is one timer thread, the runner's own or one shared by all the
 * dispatcher's pools ({@link Bulkheads}).
 *
 * <p>Thread-safe.
 */
public final class AttemptRunner implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AttemptRunner.class);

  private final Clock clock;
  private final ThreadPoolExecutor workers;
  private final ScheduledExecutorService watchdog;
  private final boolean ownsWatchdog;
  private final Consumer<Completion> sink;
  private final int capacity;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Map<RunKey, Attempt> running = new ConcurrentHashMap<>();
  private volatile boolean stopping;

  /** How long an idle worker thread lives before it ends (a standalone runner's default). */
  public static final Duration DEFAULT_IDLE_KEEP_ALIVE = Duration.ofSeconds(60);

  /** A runner with its own watchdog thread (for a single pool; {@link Bulkheads} shares one). */
  public AttemptRunner(Clock clock, int threads, int queueCapacity, Consumer<Completion> sink) {
    this(clock, threads, queueCapacity, DEFAULT_IDLE_KEEP_ALIVE, newWatchdog(), true, sink);
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
      Consumer<Completion> sink) {
    this(clock, threads, queueCapacity, idleKeepAlive, watchdog, false, sink);
  }

  private AttemptRunner(
      Clock clock,
      int threads,
      int queueCapacity,
      Duration idleKeepAlive,
      ScheduledExecutorService watchdog,
      boolean ownsWatchdog,
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
    this.capacity = threads + queueCapacity;
    this.workers =
        new ThreadPoolExecutor(
            threads,
            threads,
            SaturatingMillis.toMillis(idleKeepAlive),
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(queueCapacity),
            DaemonThreads.numbered("ax-worker"));
    // Idle groups cost no threads: a pool grows to its size under load and shrinks to none.
    this.workers.allowCoreThreadTimeOut(true);
    this.watchdog = watchdog;
    this.ownsWatchdog = ownsWatchdog;
  }

  /** One timer thread for attempts' deadlines. */
  static ScheduledExecutorService newWatchdog() {
    ScheduledThreadPoolExecutor timers =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.named("ax-dispatcher-watchdog"));
    // A finished attempt cancels its timer: drop it at once rather than keep it (and the task
    // it references) until its deadline.
    timers.setRemoveOnCancelPolicy(true);
    return timers;
  }

  /** Worker threads alive now (at most {@code threads}; none once idle for the keep-alive). */
  public int liveThreads() {
    return workers.getPoolSize();
  }

  /** The attempts started and not yet settled: their run leases must be kept alive. */
  public Set<RunKey> running() {
    return Set.copyOf(running.keySet());
  }

  /** Attempts submitted and not yet settled (running or queued). */
  public int inFlight() {
    return inFlight.get();
  }

  /** Attempts this runner can still take without queueing beyond its bound. */
  public int freeCapacity() {
    return capacity - inFlight.get();
  }

  /** Runs one claimed attempt with {@code executor}; the outcome goes to the sink. */
  public void submit(ClaimedInstance claimed, StoredTask task, TaskExecutor executor) {
    Duration timeout = task.spec().timeout();
    // Saturating: a stored timeout of centuries is a deadline at the far-future bound, not a
    // DateTimeException that would leave the claimed attempt unstarted.
    Instant deadline = Instant.ofEpochMilli(SaturatingMillis.atMs(clock.millis(), timeout));
    AttemptContext context =
        new AttemptContext(
            task.spec(),
            claimed.instanceId(),
            claimed.attempt(),
            Instant.ofEpochMilli(claimed.dueAtMs()),
            claimed.traceId(),
            task.traceId(),
            deadline);
    Attempt attempt = Attempt.of(claimed, task, executor, context, timeout);
    inFlight.incrementAndGet();
    running.put(new RunKey(claimed.instanceId(), claimed.attempt()), attempt);
    Future<?> run;
    try {
      run = submitRun(attempt);
      attempt.run().set(run);
    } catch (RejectedExecutionException e) {
      inFlight.decrementAndGet();
      running.remove(new RunKey(claimed.instanceId(), claimed.attempt()));
      long nowMs = clock.millis();
      sink.accept(
          new Completion(
              claimed,
              task.spec().group(),
              InstanceStatus.FAILED,
              "dispatcher at capacity: " + e.getMessage(),
              nowMs,
              nowMs,
              null,
              null,
              null,
              task.spec().retry(),
              null));
      return;
    }
    scheduleTimeout(attempt, run);
  }

  /**
   * One submitted attempt: what it runs, and what its worker and its watchdog share to decide which
   * of them settles it ({@code settled}: the first to set it records the attempt, the other does
   * nothing). Made on the submitting thread; afterwards its atomics are the only state the two
   * threads share.
   */
  private record Attempt(
      ClaimedInstance claimed,
      StoredTask task,
      TaskExecutor executor,
      AttemptContext context,
      Duration timeout,
      AtomicBoolean settled,
      AtomicReference<Long> startedAtMs,
      AtomicReference<ScheduledFuture<?>> timer,
      AtomicReference<Future<?>> run) {

    static Attempt of(
        ClaimedInstance claimed,
        StoredTask task,
        TaskExecutor executor,
        AttemptContext context,
        Duration timeout) {
      return new Attempt(
          claimed,
          task,
          executor,
          context,
          timeout,
          new AtomicBoolean(),
          new AtomicReference<>(),
          new AtomicReference<>(),
          new AtomicReference<>());
    }

    String timedOut() {
      return "timed out after " + SaturatingMillis.toMillis(timeout) + " ms";
    }
  }

  private Future<?> submitRun(Attempt attempt) {
    return workers.submit(
        () -> {
          if (attempt.settled().get()) {
            return; // interrupted while queued: nothing to run, nothing to record
          }
          try (TraceLog fields = traceLog(attempt)) {
            run(attempt);
          }
        });
  }

  /** The trace fields of the log lines about {@code attempt}, for the thread that logs them. */
  private static TraceLog traceLog(Attempt attempt) {
    return TraceLog.ofRun(
        attempt.claimed().traceId(),
        attempt.claimed().taskId(),
        attempt.claimed().instanceId(),
        attempt.task().traceId());
  }

  /** Runs {@code attempt} on this worker thread and settles it unless its watchdog did. */
  private void run(Attempt attempt) {
    long startMs = clock.millis();
    attempt.startedAtMs().set(startMs);
    InstanceStatus status;
    String error = null;
    String stackTrace = null;
    ExecutionResult result = null;
    try {
      result = attempt.executor().execute(attempt.context());
      status = result.succeeded() ? InstanceStatus.SUCCESS : InstanceStatus.FAILED;
      error = result.error();
      if (result.cause() != null) {
        stackTrace = StackTraces.of(result.cause());
      }
    } catch (InterruptedException | HttpTimeoutException e) {
      status = InstanceStatus.TIMEOUT;
      error = attempt.timedOut();
    } catch (Exception | LinkageError e) {
      status = InstanceStatus.FAILED;
      error = e.toString();
      stackTrace = StackTraces.of(e);
    }
    error = bounded(error);
    if (attempt.settled().compareAndSet(false, true)) {
      ScheduledFuture<?> t = attempt.timer().get();
      if (t != null) {
        t.cancel(false);
      }
      finish(attempt, new Ending(status, error, stackTrace), startMs, result);
    }
  }

  private void scheduleTimeout(Attempt attempt, Future<?> run) {
    attempt
        .timer()
        .set(
            watchdog.schedule(
                () -> {
                  if (attempt.settled().compareAndSet(false, true)) {
                    run.cancel(true);
                    Long startMs = attempt.startedAtMs().get();
                    finish(
                        attempt,
                        new Ending(InstanceStatus.TIMEOUT, attempt.timedOut(), null),
                        startMs == null ? clock.millis() : startMs,
                        null);
                  }
                },
                // The scheduler clamps a delay of Long.MAX_VALUE itself (it never fires).
                SaturatingMillis.toMillis(attempt.timeout()),
                TimeUnit.MILLISECONDS));
    // A quick run may have settled before its timer existed, so it could not cancel it: cancel
    // it here, or the timer (and the attempt it holds) stays queued until its deadline. Either
    // the run saw the timer or this sees the run settled (both through volatile reads).
    if (attempt.settled().get()) {
      attempt.timer().get().cancel(false);
    }
  }

  /**
   * Interrupts attempt {@code key} if it runs (or waits) here and has not settled, and records no
   * outcome for it: its row was settled by someone else (CANCELLED by a CANCEL with interrupt), so
   * an outcome could not be recorded anyway. The executor sees an interrupt, as at a timeout.
   *
   * @return whether this runner had the attempt unsettled
   */
  public boolean interrupt(RunKey key, String why) {
    Attempt attempt = running.get(key);
    if (attempt == null || !attempt.settled().compareAndSet(false, true)) {
      return false;
    }
    ScheduledFuture<?> timer = attempt.timer().get();
    if (timer != null) {
      timer.cancel(false);
    }
    Future<?> run = attempt.run().get();
    if (run != null) {
      run.cancel(true);
    }
    inFlight.decrementAndGet();
    running.remove(key);
    try (TraceLog fields = traceLog(attempt)) {
      log.info("{} attempt {} interrupted: {}", key.instanceId(), key.attempt(), why);
    }
    return true;
  }

  /** Timers queued for attempts' deadlines; for tests. */
  int pendingTimers() {
    return ((ScheduledThreadPoolExecutor) watchdog).getQueue().size();
  }

  /** Records an attempt that could not run at all (task or executor missing). */
  public void fail(ClaimedInstance claimed, String group, String error) {
    long nowMs = clock.millis();
    sink.accept(
        new Completion(
            claimed,
            group,
            InstanceStatus.FAILED,
            error,
            nowMs,
            nowMs,
            null,
            null,
            null,
            null,
            null));
  }

  /** How the run itself ended: status, one-line error, stack trace (when it threw). */
  private record Ending(InstanceStatus status, String error, String stackTrace) {}

  /**
   * The most of an executor's error an outcome keeps: what the instance row stores. An in-process
   * executor may return, or throw with, any text; its outcome's events go into the outbox in the
   * outcome's transaction, and a statement larger than the server takes would fail that batch every
   * time it is tried.
   */
  static final int MAX_ERROR_CHARS = 2048;

  static String bounded(String error) {
    return error == null || error.length() <= MAX_ERROR_CHARS
        ? error
        : error.substring(0, MAX_ERROR_CHARS) + " ... (" + error.length() + " characters, cut)";
  }

  private void finish(Attempt attempt, Ending ending, long startMs, ExecutionResult result) {
    ClaimedInstance claimed = attempt.claimed();
    StoredTask task = attempt.task();
    inFlight.decrementAndGet();
    running.remove(new RunKey(claimed.instanceId(), claimed.attempt()));
    if (stopping && ending.status() == InstanceStatus.TIMEOUT) {
      // Interrupted by shutdown, not by its deadline: leave the row RUNNING for the reaper.
      log.info(
          "{} attempt {} interrupted by shutdown; left for recovery",
          claimed.instanceId(),
          claimed.attempt());
      return;
    }
    sink.accept(
        new Completion(
            claimed,
            task.spec().group(),
            ending.status(),
            ending.error(),
            startMs,
            clock.millis(),
            attempt.executor(),
            attempt.context(),
            result,
            task.spec().retry(),
            ending.stackTrace()));
  }

  /**
   * Stops taking work, lets running attempts finish within {@code grace}, then interrupts the rest
   * (their rows stay RUNNING and are recovered once their lease expires).
   */
  public void shutdown(Duration grace) {
    workers.shutdown();
    try {
      if (!workers.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        stopping = true;
        int left = workers.shutdownNow().size();
        log.warn(
            "Shutdown grace of {} ms over: {} queued attempt(s) not started, running ones interrupted",
            grace.toMillis(),
            left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      workers.shutdownNow();
    }
    if (ownsWatchdog) {
      watchdog.shutdownNow();
    }
  }

  @Override
  public void close() {
    shutdown(Duration.ZERO);
  }
}
