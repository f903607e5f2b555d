package dev.ax.ticker.fire;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.NewInstance;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
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
  final Map<String, List<Long>> holdReasons = new LinkedHashMap<>();
  final Map<InstanceStatus, List<Long>> cancel = new EnumMap<>(InstanceStatus.class);
  final Map<Long, Long> firingsBySkippedSeq = new HashMap<>();
  final Map<Long, Long> notYet = new LinkedHashMap<>();
  final Map<String, List<NewInstance>> successorsByInstanceId = new LinkedHashMap<>();
  final Map<String, String> chainsEndedByInstanceId = new LinkedHashMap<>();

  public List<Long> dispatch() {
    return dispatch;
  }

  public Map<String, List<Long>> skip() {
    return skip;
  }

  /**
   * Rows held before and still waiting (a buffering overlap policy, their run in flight): left
   * SCHEDULED, untouched, looked at again shortly.
   */
  public List<Long> delay() {
    return delay;
  }

  /**
   * Rows held for the first time, by the audit reason: they stay SCHEDULED (a recorded move to
   * themselves, fenced like every move of a firing), their successors are created now, and they are
   * looked at again shortly.
   */
  public Map<String, List<Long>> hold() {
    return holdReasons;
  }

  /**
   * Rows of busy tasks not due yet, by seq, with their due times: nothing moves; each is looked at
   * again at its due time.
   */
  public Map<Long, Long> notYet() {
    return notYet;
  }

  /**
   * Runs in flight to cancel (CANCEL_OTHER), by their status (the conditional UPDATE's {@code WHERE
   * status}); keyed by seq.
   */
  public Map<InstanceStatus, List<Long>> cancel() {
    return cancel;
  }

  /**
   * How many firings a skipped row stands for: 1, or for a late row the missed slots it records (it
   * is the oldest of them).
   */
  public long firingsOf(long skippedSeq) {
    return firingsBySkippedSeq.getOrDefault(skippedSeq, 1L);
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

  /** Skips a row that stands for {@code firings} missed slots (itself the oldest). */
  void skipMissed(String reason, long seq, long firings) {
    skip(reason, seq);
    firingsBySkippedSeq.put(seq, Math.max(1, firings));
  }

  void hold(String reason, long seq) {
    holdReasons.computeIfAbsent(reason, r -> new ArrayList<>()).add(seq);
  }

  void cancel(TaskOverlap.RunInFlight run) {
    cancel.computeIfAbsent(run.status(), s -> new ArrayList<>()).add(run.seq());
  }
}
