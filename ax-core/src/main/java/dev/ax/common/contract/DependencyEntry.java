package dev.ax.common.contract;

import java.util.List;

/**
 * On the compacted topic {@code ax.task.dependencies} (key = the upstream task id): every
 * DEPENDENCY task that waits for that upstream, each with all of its upstreams. Ingest writes the
 * whole entry again whenever a task that waits for the upstream is created, so the latest record
 * per key is the table the dependency resolver joins completion events against.
 */
public record DependencyEntry(int v, String upstreamTaskId, List<Downstream> downstreams) {

  /** A task that runs once every one of {@code upstreams} succeeded in the same flow run. */
  public record Downstream(String taskId, List<String> upstreams) {}
}
