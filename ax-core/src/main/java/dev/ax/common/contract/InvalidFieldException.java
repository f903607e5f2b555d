package dev.ax.common.contract;

/**
 * A field of an incoming message is missing or wrong. Thrown inside the reader only and turned into
 * a {@link CommandReadResult.Rejected} at its boundary; never escapes to callers.
 */
final class InvalidFieldException extends RuntimeException {
  InvalidFieldException(String message) {
    super(message, null, false, false);
  }
}
