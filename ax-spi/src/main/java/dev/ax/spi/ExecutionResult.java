package dev.ax.spi;

/**
 * How an attempt ended, as the executor saw it.
 *
 * @param succeeded true for success
 * @param error a one-line summary of the failure, null on success
 * @param retryable false when retrying cannot help (e.g. a host not on the allow-list); the
 *     instance then becomes a dead letter at once
 * @param cause the exception behind a failure, if any: its stack trace goes to the dead letter,
 *     never to the log
 */
public record ExecutionResult(boolean succeeded, String error, boolean retryable, Throwable cause) {

  private static final ExecutionResult SUCCESS = new ExecutionResult(true, null, false, null);

  /** Without a cause; kept for executors written before the cause existed. */
  public ExecutionResult(boolean succeeded, String error, boolean retryable) {
    this(succeeded, error, retryable, null);
  }

  public static ExecutionResult ok() {
    return SUCCESS;
  }

  public static ExecutionResult failure(String error) {
    return new ExecutionResult(false, error, true, null);
  }

  /** A retryable failure caused by {@code cause}. */
  public static ExecutionResult failure(String error, Throwable cause) {
    return new ExecutionResult(false, error, true, cause);
  }

  public static ExecutionResult permanentFailure(String error) {
    return new ExecutionResult(false, error, false, null);
  }
}
