package dev.ax.common.spi;

/**
 * How an attempt ended, as the executor saw it.
 *
 * @param succeeded true for success
 * @param error a one-line summary of the failure, null on success
 * @param retryable false when retrying cannot help (e.g. a host not on the allow-list)
 */
public record ExecutionResult(boolean succeeded, String error, boolean retryable) {

  private static final ExecutionResult SUCCESS = new ExecutionResult(true, null, false);

  public static ExecutionResult ok() {
    return SUCCESS;
  }

  public static ExecutionResult failure(String error) {
    return new ExecutionResult(false, error, true);
  }

  public static ExecutionResult permanentFailure(String error) {
    return new ExecutionResult(false, error, false);
  }
}
