package dev.ax.common.store;

/**
 * What becomes of an instance after a failed attempt (FAILED or TIMEOUT), decided by the dispatcher
 * and recorded in the same transaction as the attempt's outcome, so a crash between the two cannot
 * leave a failure that nobody retries.
 */
public sealed interface AfterFailure {

  /** FAILED/TIMEOUT → RETRYING; the retry stage dispatches the next attempt at {@code atMs}. */
  record Retry(long atMs, String reason) implements AfterFailure {}

  /** FAILED/TIMEOUT → DEAD: no attempts left, not retryable, or retries switched off. */
  record Dead(String reason) implements AfterFailure {}
}
