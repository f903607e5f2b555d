package dev.ax.common.store;

/**
 * The database could not be reached or refused a statement. Not a lost race (those are return
 * values): the caller backs off and tries again, leaving its Kafka offsets uncommitted.
 */
public final class StoreException extends RuntimeException {
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
