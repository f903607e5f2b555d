package dev.ax.resolver;

import java.util.List;
import java.util.Set;

/**
 * The state of one join (downstream task, flow run) in the resolver's store: which upstreams
 * succeeded so far, whether the downstream was triggered, and when the join began (for retention).
 */
record JoinState(
    String downstream,
    String flowRunId,
    List<String> upstreams,
    Set<String> succeeded,
    boolean triggered,
    long firstSeenMs) {

  List<String> missing() {
    return upstreams.stream().filter(u -> !succeeded.contains(u)).toList();
  }
}
