package dev.ax.common.thread;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way AX makes its threads: daemon threads (a stage's shutdown hook decides when the JVM
 * ends, not a forgotten thread) with a name that says what they do, so a thread dump or a log line
 * tells an operator which part of which stage it is; a thread that dies of an uncaught exception
 * says so in the log (with its name), not only on standard error. And the one way a part waits for
 * its thread to end when it stops ({@link #awaitEnd}).
 *
 * <p>Stateless apart from the counters of {@link #numbered}; thread-safe.
 */
public final class DaemonThreads {

  private static final Logger log = LoggerFactory.getLogger(DaemonThreads.class);

  private DaemonThreads() {}

  /** An unstarted daemon thread named {@code name} that runs {@code body}. */
  public static Thread thread(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    thread.setUncaughtExceptionHandler(
        (dead, e) -> log.error("Thread {} ended by an uncaught {}", dead.getName(), e, e));
    return thread;
  }

  /** A factory whose every thread is named {@code name}: for executors of one thread. */
  public static ThreadFactory named(String name) {
    return body -> thread(name, body);
  }

  /** A factory naming its threads {@code prefix-1}, {@code prefix-2}, …: for pools. */
  public static ThreadFactory numbered(String prefix) {
    AtomicInteger counter = new AtomicInteger();
    return body -> thread(prefix + "-" + counter.incrementAndGet(), body);
  }

  /** A scheduled executor of one daemon thread named {@code name}. */
  public static ScheduledExecutorService scheduler(String name) {
    return Executors.newSingleThreadScheduledExecutor(named(name));
  }

  /**
   * Waits up to {@code timeout} for {@code thread} to end. If the caller is interrupted meanwhile
   * it stops waiting and keeps its interrupt status, so that whoever stops it still sees it.
   */
  public static void awaitEnd(Thread thread, Duration timeout) {
    try {
      thread.join(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Interrupts what {@code executor} runs, drops what it has queued, and waits up to {@code
   * timeout} for its threads to end, so that nothing it runs still uses what its owner closes next.
   * An interrupted caller stops waiting and keeps its interrupt status.
   */
  public static void stop(ExecutorService executor, Duration timeout) {
    executor.shutdownNow();
    try {
      executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
