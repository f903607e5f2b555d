package dev.ax.common.model;

/**
 * How an executor pool picks the endpoint of a run, among its live endpoints (ACTIVE, heartbeat
 * within the pool's offline-after). Each strategy also orders the other live endpoints, tried in
 * turn when an endpoint cannot be connected to.
 */
public enum PoolStrategy {
  /** Each dispatcher takes the live endpoints in turn. */
  ROUND_ROBIN,
  /**
   * The endpoint a hash ring of the live endpoints gives the task id: a task keeps its endpoint.
   */
  CONSISTENT_HASH,
  /** The endpoint with the fewest of this dispatcher's calls in flight. */
  LEAST_BUSY,
  /** The first live endpoint in registration order; the next only when it cannot be reached. */
  FAILOVER
}
