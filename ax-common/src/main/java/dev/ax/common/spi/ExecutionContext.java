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

  /** {@code instanceId:attempt}: for side effects AX cannot see, e.g. a payment. */
  public String idempotencyKey() {
    return InstanceIds.idempotencyKey(instanceId, attempt);
  }
}
