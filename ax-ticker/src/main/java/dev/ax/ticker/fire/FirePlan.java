package dev.ax.ticker.fire;

import dev.ax.common.store.NewInstance;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one batch of due instances turns into: rows to dispatch, rows to skip (by reason), rows to
 * hold back and look at again later, and the successors to create for each row that moves. Mutable
 * while {@link FirePlanner} builds it; read-only afterwards. Not thread-safe.
 */
public final class FirePlan {

  final List<Long> dispatch = new ArrayList<>();
  final Map<String, List<Long>> skip = new LinkedHashMap<>();
  final List<Long> delay = new ArrayList<>();
  final Map<String, List<NewInstance>> successorsByInstanceId = new LinkedHashMap<>();
  final Map<String, String> chainsEndedByInstanceId = new LinkedHashMap<>();

  public List<Long> dispatch() {
    return dispatch;
  }

  public Map<String, List<Long>> skip() {
    return skip;
  }

  /** Rows left SCHEDULED for now (a non-concurrent task still running, DELAY policy). */
  public List<Long> delay() {
    return delay;
  }

  /** Successors of a row, created only if that row moves (dispatched or skipped). */
  public List<NewInstance> successorsOf(String instanceId) {
    return successorsByInstanceId.getOrDefault(instanceId, List.of());
  }

  public Map<String, List<NewInstance>> successors() {
    return successorsByInstanceId;
  }

  /**
   * Periodic tasks whose chain ends with this batch, by the instance id of their last row: they
   * have no slot after it (a cron whose years are over, a FIXED_RATE slot beyond the year 9999).
   * The caller logs each once; no later row of the task follows.
   */
  public Map<String, String> chainsEnded() {
    return chainsEndedByInstanceId;
  }

  void skip(String reason, long seq) {
    skip.computeIfAbsent(reason, r -> new ArrayList<>()).add(seq);
  }
}
