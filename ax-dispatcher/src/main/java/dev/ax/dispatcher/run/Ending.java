package dev.ax.dispatcher.run;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.store.RunOutput;
import dev.ax.dispatcher.executor.OutputMask;
import dev.ax.spi.ExecutionResult;
import java.net.http.HttpTimeoutException;
import java.util.List;
import java.util.Map;

/**
 * How an attempt's run itself ended, as its outcome records it: status, one-line error (bounded),
 * stack trace (when the executor threw), the executor's result (null when it threw or timed out)
 * and what the run said ({@code output}: masked by {@link OutputMask}, at most {@link
 * RunOutput#MAX_CHARS} characters; null when it said nothing). The masking runs here, on the
 * attempt's worker, so the recorder's thread pays nothing for it.
 *
 * <p>Thread-safety: immutable; {@link #of} runs on the attempt's worker thread.
 */
record Ending(
    InstanceStatus status, String error, String stackTrace, ExecutionResult result, String output) {

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
          result,
          output(attempt.task().spec(), result.output()));
    } catch (InterruptedException | HttpTimeoutException e) {
      return timedOut(attempt);
    } catch (Exception | LinkageError e) {
      return new Ending(
          InstanceStatus.FAILED, bounded(e.toString()), StackTraces.of(e), null, null);
    }
  }

  /** The attempt ran past its deadline. */
  static Ending timedOut(Attempt attempt) {
    return new Ending(InstanceStatus.TIMEOUT, attempt.timedOut(), null, null, null);
  }

  /**
   * What {@code spec}'s run said, as it is stored: secrets masked (its secret-looking params and
   * headers, and assignments), then cut to {@link RunOutput#MAX_CHARS}; null for none.
   */
  static String output(TaskSpec spec, String said) {
    if (said == null) {
      return null;
    }
    Map<String, String> headers =
        spec.executor() instanceof ExecutorSpec.Http http ? http.headers() : Map.of();
    return RunOutput.bounded(
        OutputMask.of(spec.params(), headers, List.of()).apply(said), RunOutput.MAX_CHARS);
  }

  static String bounded(String error) {
    return error == null || error.length() <= MAX_ERROR_CHARS
        ? error
        : error.substring(0, MAX_ERROR_CHARS) + " ... (" + error.length() + " characters, cut)";
  }
}
