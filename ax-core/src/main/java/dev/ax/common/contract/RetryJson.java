package dev.ax.common.contract;

import static dev.ax.common.contract.JsonFields.optionalBoolean;
import static dev.ax.common.contract.JsonFields.requireLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.model.RetryPolicy;
import java.time.Duration;

/**
 * Reads and writes the {@code retry} object of a task spec ({@code maxRetries}, {@code
 * backoffBaseMs}, {@code backoffMaxMs}, {@code jitter}); each absent field takes {@link
 * RetryPolicy}'s default, and an absent {@code backoffMaxMs} is never below the base given.
 *
 * <p>Stateless and thread-safe.
 */
final class RetryJson {

  /** The most retries a task may ask for. */
  static final int MAX_RETRIES = 100;

  private RetryJson() {}

  /**
   * @throws InvalidFieldException with the reason when a field is wrong
   */
  static RetryPolicy read(JsonNode node, IntakeCheck check) {
    // Ranges are checked on the long, before any narrowing: (int) Long.MAX_VALUE is -1.
    long maxRetries =
        node.has("maxRetries")
            ? requireLong(node, "maxRetries", "retry.maxRetries")
            : RetryPolicy.DEFAULT_MAX_RETRIES;
    if (maxRetries < 0 || maxRetries > MAX_RETRIES) {
      throw new InvalidFieldException(
          "retry.maxRetries must be in 0.." + MAX_RETRIES + ": " + maxRetries);
    }
    long baseMs =
        node.has("backoffBaseMs")
            ? requireLong(node, "backoffBaseMs", "retry.backoffBaseMs")
            : RetryPolicy.DEFAULT_BACKOFF_BASE.toMillis();
    if (baseMs < 1) {
      throw new InvalidFieldException("retry.backoffBaseMs must be positive: " + baseMs);
    }
    check.backoff("retry.backoffBaseMs", baseMs);
    long maxMs =
        node.has("backoffMaxMs")
            ? requireLong(node, "backoffMaxMs", "retry.backoffMaxMs")
            : Math.max(RetryPolicy.DEFAULT_BACKOFF_MAX.toMillis(), baseMs);
    if (maxMs < baseMs) {
      throw new InvalidFieldException(
          "retry.backoffMaxMs must be at least retry.backoffBaseMs: " + maxMs + " < " + baseMs);
    }
    check.backoff("retry.backoffMaxMs", maxMs);
    boolean jitter = optionalBoolean(node, "jitter", "retry.jitter", true);
    try {
      return new RetryPolicy(
          (int) maxRetries, Duration.ofMillis(baseMs), Duration.ofMillis(maxMs), jitter);
    } catch (IllegalArgumentException e) {
      throw new InvalidFieldException("retry: " + Echo.cut(e.getMessage()));
    }
  }

  static ObjectNode write(RetryPolicy retry) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("maxRetries", retry.maxRetries());
    node.put("backoffBaseMs", retry.backoffBase().toMillis());
    node.put("backoffMaxMs", retry.backoffMax().toMillis());
    node.put("jitter", retry.jitter());
    return node;
  }
}
