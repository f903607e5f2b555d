package dev.ax.spi;

/**
 * How an attempt ended, as the executor saw it.
 *
 * <p>{@code output} is what the run said: an HTTP call's status, chosen headers and the start of
 * its body, a script's stdout and stderr, an in-process executor's message. AX stores a bounded
 * excerpt of it with the attempt (at most {@code AX_RUN_OUTPUT_MAX_CHARS} characters, the rest cut
 * with a marker), with values that look secret masked, and shows it in {@code ax task runs}, the
 * API and the console; the start of it is the completion event's {@code result.summary}. Null (the
 * default) stores nothing. Do not put secrets in it: the masking is a safety net, not a guarantee.
 *
 * @param succeeded true for success
 * @param error a one-line summary of the failure, null on success
 * @param retryable false when retrying cannot help (e.g. a host not on the allow-list); the
 *     instance then becomes a dead letter at once
 * @param cause the exception behind a failure, if any: its stack trace goes to the dead letter,
 *     never to the log
 * @param output what the run said, or null for nothing to store
 */
public record ExecutionResult(
    boolean succeeded, String error, boolean retryable, Throwable cause, String output) {

  private static final ExecutionResult SUCCESS = new ExecutionResult(true, null, false, null, null);

  /** Without a cause; kept for executors written before the cause existed. */
  public ExecutionResult(boolean succeeded, String error, boolean retryable) {
    this(succeeded, error, retryable, null, null);
  }

  /** Without output; kept for executors written before the output existed. */
  public ExecutionResult(boolean succeeded, String error, boolean retryable, Throwable cause) {
    this(succeeded, error, retryable, cause, null);
  }

  public static ExecutionResult ok() {
    return SUCCESS;
  }

  /** A success that said {@code output} (null: nothing to store). */
  public static ExecutionResult ok(String output) {
    return output == null ? SUCCESS : new ExecutionResult(true, null, false, null, output);
  }

  public static ExecutionResult failure(String error) {
    return new ExecutionResult(false, error, true, null, null);
  }

  /** A retryable failure caused by {@code cause}. */
  public static ExecutionResult failure(String error, Throwable cause) {
    return new ExecutionResult(false, error, true, cause, null);
  }

  public static ExecutionResult permanentFailure(String error) {
    return new ExecutionResult(false, error, false, null, null);
  }

  /** This result with {@code newOutput} as what the run said (null: nothing to store). */
  public ExecutionResult withOutput(String newOutput) {
    return new ExecutionResult(succeeded, error, retryable, cause, newOutput);
  }
}
