package dev.ax.dispatcher.run;

import dev.ax.common.model.InstanceStatus;
import dev.ax.spi.ExecutionResult;
import java.net.http.HttpTimeoutException;

/**
 * How an attempt's run itself ended, as its outcome records it: status, one-line error (bounded),
 * stack trace (when the executor threw) and the executor's result (null when it threw or timed
 * out).
 *
 * <p>Thread-safety: immutable; {@link #of} runs on the attempt's worker thread.
 */
record Ending(InstanceStatus status, String error, String stackTrace, ExecutionResult result) {

  /**
   * The most of an executor's error an outcome keeps: what the instance row stores. An in-process
   * executor may return, or throw with, any text; its outcome's events go into the outbox in the
   * outcome's transaction, and a statement larger than the server takes would fail that batch every
   * time it is tried.
   */
  static final int MAX_ERROR_CHARS = 2048;

  /**
   * Runs {@code attempt}'s executor on this thread and says how it ended: an interrupt (its
   * watchdog's, at the deadline) or an HTTP timeout is a TIMEOUT; anything thrown is a FAILED.
   */
  static Ending of(Attempt attempt) {
    try {
      ExecutionResult result = attempt.executor().execute(attempt.context());
      return new Ending(
          result.succeeded() ? InstanceStatus.SUCCESS : InstanceStatus.FAILED,
          bounded(result.error()),
          result.cause() == null ? null : StackTraces.of(result.cause()),
          result);
    } catch (InterruptedException | HttpTimeoutException e) {
      return timedOut(attempt);
    } catch (Exception | LinkageError e) {
      return new Ending(InstanceStatus.FAILED, bounded(e.toString()), StackTraces.of(e), null);
    }
  }

  /** The attempt ran past its deadline. */
  static Ending timedOut(Attempt attempt) {
    return new Ending(InstanceStatus.TIMEOUT, attempt.timedOut(), null, null);
  }

  static String bounded(String error) {
    return error == null || error.length() <= MAX_ERROR_CHARS
        ? error
        : error.substring(0, MAX_ERROR_CHARS) + " ... (" + error.length() + " characters, cut)";
  }
}
