package dev.ax.resolver;

import java.util.List;

/**
 * One upstream of {@code downstream} succeeded in {@code flowRunId}: what the resolver routes to
 * the join of (downstream, flow run). {@code upstreams} is everything the downstream waits for;
 * {@code succeededAtMs} is when the upstream's attempt finished (the dispatcher's clock).
 */
record UpstreamSucceeded(
    String downstream,
    List<String> upstreams,
    String upstream,
    String flowRunId,
    String traceId,
    long succeededAtMs) {

  /** The join's key: one join per downstream task and flow run. */
  String joinKey() {
    return downstream + "|" + flowRunId;
  }
}
