package dev.ax.spi;

import java.time.Instant;
import java.util.Map;

/**
 * What an executor gets for one attempt: which task, its parameters, and this instance and attempt.
 * AX passes its own implementation; an executor only reads it.
 */
public interface ExecutionContext {

  /** The task's id, as its creator gave it. */
  String taskId();

  /** The task's group (its bulkhead in the dispatcher). */
  String group();

  /** The task's parameters (the {@code params} of its spec); never null, unmodifiable. */
  Map<String, String> params();

  /** The instance this attempt runs: {@code taskId@dueAtMs} or similar, unique per firing. */
  String instanceId();

  /** This attempt's number, from 1; a retry or a run after a crash counts up. */
  int attempt();

  /** When the instance was due. */
  Instant dueAt();

  /**
   * The trace id this run carries, for correlating logs; may be null. Each run of a periodic task
   * has its own; {@link #taskTraceId()} is the task's.
   */
  String traceId();

  /** The trace id of the task itself (its creation); the same as {@link #traceId()} by default. */
  default String taskTraceId() {
    return traceId();
  }

  /**
   * The W3C {@code traceparent} of this attempt ({@code 00-<trace>-<span>-01}), for passing the
   * trace on to a call the executor makes; null when the run has no trace.
   */
  default String traceparent() {
    return null;
  }

  /**
   * When the attempt times out; an executor that can pass a deadline on (an HTTP timeout) should.
   */
  Instant deadline();

  /**
   * The key for side effects AX cannot see, e.g. a payment: the instance id, the same on every
   * attempt, crash re-run, retry and replay of this instance, so a receiver that has done the work
   * once can tell. {@link #attempt()} travels separately ({@code X-AX-Attempt}, {@code
   * AX_ATTEMPT}).
   */
  default String idempotencyKey() {
    return instanceId();
  }

  /**
   * This run's shard, from 0, when its task is sharded ({@code "sharding": {"total": N}}): each
   * firing runs as {@link #shardTotal()} shards in parallel, and shard {@code i} should take the
   * part of the work with {@code key % shardTotal == i}. 0 for a task that is not sharded.
   */
  default int shardIndex() {
    return 0;
  }

  /** How many shards this run's firing has; 1 for a task that is not sharded. */
  default int shardTotal() {
    return 1;
  }
}
