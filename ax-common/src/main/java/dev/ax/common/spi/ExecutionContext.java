package dev.ax.common.spi;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.TaskSpec;
import java.time.Instant;

/**
 * What an executor gets for one attempt: the task as defined, and this instance and attempt.
 *
 * @param deadline when the attempt times out; an executor that can pass a deadline on (an HTTP
 *     timeout) should
 */
public record ExecutionContext(
    TaskSpec task,
    String instanceId,
    int attempt,
    Instant dueAt,
    String traceId,
    Instant deadline) {

  /**
   * The key for side effects AX cannot see, e.g. a payment: the instance id, the same on every
   * attempt, crash re-run, retry and replay of this instance, so a receiver that has done the work
   * once can tell. {@link #attempt()} travels separately ({@code X-AX-Attempt}, {@code
   * AX_ATTEMPT}).
   */
  public String idempotencyKey() {
    return InstanceIds.idempotencyKey(instanceId);
  }
}
