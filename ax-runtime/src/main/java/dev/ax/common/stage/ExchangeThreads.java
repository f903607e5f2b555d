package dev.ax.common.stage;

import dev.ax.common.thread.DaemonThreads;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads of the {@link MetricsEndpoint}'s HTTP server, and the read timeout the JDK's server
 * does not have (short of JVM-wide system properties).
 *
 * <p>The JDK server hands each connection that has bytes to read to its executor, whose thread then
 * reads the request in a blocking read: on the server's default executor (its own single thread)
 * one client that sends half a request and nothing more holds the only thread, and {@code
 * /health/live} fails. Here a few threads ({@code threads}) with a bounded queue ({@link
 * #QUEUE_CAPACITY}) serve the exchanges, and a watchdog ends an exchange that holds its thread too
 * long: still reading its request after {@code requestReadTimeout}, or not finished after {@code
 * exchangeTimeout} (a client that does not read its answer), both counted from when the server
 * handed the exchange over, time in the queue included. It interrupts the thread, which closes the
 * connection's channel (an interruptible channel) and so ends the blocked read or write; the server
 * then drops the connection.
 *
 * <p>An exchange is "reading" from when its thread takes it until a handler runs ({@link
 * #requestRead}, which the endpoint's handlers call first).
 *
 * <p>Thread-safe: {@link #execute} is called by the server's dispatcher thread, {@link
 * #requestRead} on the exchange's own, the watchdog on its own; each exchange's state is guarded by
 * its {@link Exchange}'s monitor, so an interrupt meant for one exchange never reaches the next one
 * the same thread serves.
 */
final class ExchangeThreads implements Executor, AutoCloseable {

  /** Exchanges waiting for a thread, at most; the JDK server closes a connection refused here. */
  static final int QUEUE_CAPACITY = 64;

  /** How often the watchdog looks for exchanges past their deadline. */
  private static final Duration SWEEP_INTERVAL = Duration.ofMillis(200);

  private static final Logger log = LoggerFactory.getLogger(ExchangeThreads.class);

  private final Duration requestReadTimeout;
  private final Duration exchangeTimeout;
  private final LongSupplier nanos;
  private final ThreadPoolExecutor pool;
  private final ScheduledExecutorService watchdog;
  private final Map<Thread, Exchange> running = new ConcurrentHashMap<>();

  /**
   * @param threads how many exchanges are served at once
   * @param requestReadTimeout how long an exchange may take to read its request
   * @param exchangeTimeout how long an exchange may hold its thread in all
   * @param nanos the monotonic clock ({@code System::nanoTime})
   */
  ExchangeThreads(
      int threads, Duration requestReadTimeout, Duration exchangeTimeout, LongSupplier nanos) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1: " + threads);
    }
    this.requestReadTimeout = requestReadTimeout;
    this.exchangeTimeout = exchangeTimeout;
    this.nanos = nanos;
    this.pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(QUEUE_CAPACITY),
            DaemonThreads.numbered("ax-metrics-http"));
    this.watchdog = DaemonThreads.scheduler("ax-metrics-http-watchdog");
    watchdog.scheduleWithFixedDelay(
        this::endOverdue,
        SWEEP_INTERVAL.toMillis(),
        SWEEP_INTERVAL.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * Runs one exchange of the server on a pool thread.
   *
   * @throws java.util.concurrent.RejectedExecutionException when every thread is busy and the queue
   *     is full (the server closes that connection)
   */
  @Override
  public void execute(Runnable serverExchange) {
    long queuedNanos = nanos.getAsLong();
    pool.execute(
        () -> {
          // The deadline counts from the hand-over, not from when a thread is free: a flood of
          // slow clients queued behind the busy threads is dropped at once, not one timeout each.
          Exchange exchange = new Exchange(Thread.currentThread(), queuedNanos);
          running.put(exchange.thread, exchange);
          exchange.endIfOverdue(nanos.getAsLong());
          try {
            serverExchange.run();
          } finally {
            running.remove(exchange.thread);
            exchange.finish();
          }
        });
  }

  /** Called by a handler on the exchange's thread: the request is read, the handling begins. */
  void requestRead() {
    Exchange exchange = running.get(Thread.currentThread());
    if (exchange != null) {
      exchange.requestRead();
    }
  }

  /** The watchdog's round: interrupts every exchange past its deadline. */
  void endOverdue() {
    long nowNanos = nanos.getAsLong();
    for (Exchange exchange : running.values()) {
      exchange.endIfOverdue(nowNanos);
    }
  }

  /** One exchange on its thread, from when the thread took it until it finished. */
  private final class Exchange {
    private final Thread thread;
    private final long startedNanos;
    private boolean reading = true;
    private boolean done;

    Exchange(Thread thread, long startedNanos) {
      this.thread = thread;
      this.startedNanos = startedNanos;
    }

    synchronized void requestRead() {
      reading = false;
    }

    synchronized void endIfOverdue(long nowNanos) {
      if (done) {
        return;
      }
      long heldNanos = nowNanos - startedNanos;
      if (reading && heldNanos > requestReadTimeout.toNanos()) {
        log.debug(
            "A metrics client sent no whole request in {} ms; dropped", heldNanos / 1_000_000);
      } else if (heldNanos > exchangeTimeout.toNanos()) {
        log.warn("A metrics exchange held its thread {} ms; dropped", heldNanos / 1_000_000);
      } else {
        return;
      }
      done = true;
      thread.interrupt();
    }

    /** Ends the exchange; an interrupt the watchdog sent it does not reach the thread's next. */
    synchronized void finish() {
      done = true;
      Thread.interrupted();
    }
  }

  @Override
  public void close() {
    watchdog.shutdownNow();
    DaemonThreads.stop(pool, Duration.ofSeconds(1));
  }
}
