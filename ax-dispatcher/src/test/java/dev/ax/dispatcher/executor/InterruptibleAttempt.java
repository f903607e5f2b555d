package dev.ax.dispatcher.executor;

import dev.ax.spi.ExecutionContext;
import dev.ax.spi.TaskExecutor;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One {@link TaskExecutor#execute} call on a worker thread of its own, so that a test can interrupt
 * it the way AX's watchdog does at the deadline and then see what the call threw.
 *
 * <p>Started, interrupted, read and closed by the test's thread; the worker only completes {@link
 * #thrown}.
 */
final class InterruptibleAttempt implements AutoCloseable {

  private final ExecutorService worker = Executors.newSingleThreadExecutor();
  private final CompletableFuture<Throwable> thrown = new CompletableFuture<>();
  private final AtomicBoolean interruptFlagKept = new AtomicBoolean();
  private final Future<?> attempt;

  private InterruptibleAttempt(TaskExecutor executor, ExecutionContext context) {
    attempt =
        worker.submit(
            () -> {
              try {
                executor.execute(context);
                thrown.complete(null);
              } catch (Throwable t) {
                interruptFlagKept.set(Thread.currentThread().isInterrupted());
                thrown.complete(t);
              }
            });
  }

  /** Starts {@code executor.execute(context)} on the worker thread. */
  static InterruptibleAttempt start(TaskExecutor executor, ExecutionContext context) {
    return new InterruptibleAttempt(executor, context);
  }

  /** Interrupts the worker thread, as AX's watchdog does at the deadline. */
  void interrupt() {
    attempt.cancel(true);
  }

  /**
   * What the call threw (null if it returned), waiting up to {@code within} for it to end.
   *
   * @throws java.util.concurrent.TimeoutException if it has not ended by then
   */
  Throwable thrown(Duration within) throws Exception {
    return thrown.get(within.toSeconds(), TimeUnit.SECONDS);
  }

  /** Whether the worker thread's interrupt flag was still set when the call threw. */
  boolean interruptFlagKept() {
    return interruptFlagKept.get();
  }

  /** Stops the worker thread, interrupting it if the call still runs. */
  @Override
  public void close() {
    worker.shutdownNow();
  }
}
