package dev.ax.ticker;

import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.RUNNING;
import static dev.ax.common.model.InstanceStatus.SCHEDULED;
import static dev.ax.common.model.InstanceStatus.SKIPPED;

import dev.ax.common.store.BatchMove;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.NewInstance;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The ticker's SQL over {@code ax_instance}: the window of SCHEDULED instances its wheel is loaded
 * from, the rows a batch the wheel fired still finds SCHEDULED, the tasks with a run in flight (the
 * concurrency check), the firing itself, and the FIXED_DELAY chainer's check for a next firing.
 * Only the ticker uses it; the reaper's SQL is {@code reaper.ReaperStore}'s.
 *
 * <p>Every write is fenced by the leader's lease: a stale leader moves and creates nothing.
 *
 * <p>Thread-safe (stateless over a pool).
 */
final class FiringStore {

  /** What one firing did: the rows it dispatched and skipped, and the successors it created. */
  record FireResult(
      List<DueInstance> dispatched, List<DueInstance> skipped, Map<String, Long> created) {}

  /** A SCHEDULED instance as the window loader sees it. */
  record WindowEntry(long seq, long dueAtMs, String triggerGroup, String taskId) {}

  private final Jdbc jdbc;

  FiringStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * One firing, in one transaction fenced by the leader's lease: SCHEDULED → DISPATCHED for {@code
   * dispatchSeqs}, SCHEDULED → SKIPPED for each group of {@code skipSeqsByReason} (the key is the
   * audit reason), and, for each row that moved, its successors in {@code successorsByInstanceId}
   * (the next firings of periodic tasks), created SCHEDULED. A crash cannot leave a periodic task
   * without its next firing. Without successors to create (one-shot tasks only), the last move's
   * packet commits: one round trip for a batch of up to 500.
   */
  FireResult fire(
      Collection<Long> dispatchSeqs,
      Map<String, ? extends Collection<Long>> skipSeqsByReason,
      LeaseFence fence,
      long nowMs,
      Map<String, List<NewInstance>> successorsByInstanceId) {
    List<Step> steps = new ArrayList<>();
    if (!dispatchSeqs.isEmpty()) {
      steps.add(new Step(List.copyOf(dispatchSeqs), dispatch(fence, nowMs)));
    }
    for (Map.Entry<String, ? extends Collection<Long>> group : skipSeqsByReason.entrySet()) {
      if (!group.getValue().isEmpty()) {
        steps.add(new Step(List.copyOf(group.getValue()), skip(fence, group.getKey(), nowMs)));
      }
    }
    if (steps.isEmpty()) {
      return new FireResult(List.of(), List.of(), Map.of());
    }
    boolean mayCreate = !successorsByInstanceId.isEmpty();
    return jdbc.inPacketTransaction(
        "firing " + dispatchSeqs.size() + " instance(s)",
        tx -> {
          List<List<DueInstance>> movedByStep = new ArrayList<>(steps.size());
          for (int i = 0; i < steps.size(); i++) {
            // Without successors to create, the last move's packet carries the commit.
            boolean commits = !mayCreate && i == steps.size() - 1;
            movedByStep.add(
                tx.move("seq", steps.get(i).seqs(), steps.get(i).move(), nowMs, commits));
          }
          // A row that did not move (a lost race, a lapsed fence) owes no successor.
          List<NewInstance> successors = new ArrayList<>();
          movedByStep.forEach(
              moved ->
                  moved.forEach(
                      row ->
                          successors.addAll(
                              successorsByInstanceId.getOrDefault(row.instanceId(), List.of()))));
          Map<String, Long> created =
              successors.isEmpty() ? Map.of() : tx.create(successors, fence.holder(), nowMs);
          // The dispatch step, when there is one, is the first; every later step is a skip.
          int firstSkip = dispatchSeqs.isEmpty() ? 0 : 1;
          List<DueInstance> dispatched = firstSkip == 0 ? List.of() : movedByStep.get(0);
          List<DueInstance> skipped = new ArrayList<>();
          movedByStep.subList(firstSkip, steps.size()).forEach(skipped::addAll);
          return new FireResult(dispatched, skipped, created);
        });
  }

  /** The rows keyed by {@code seqs} to move with {@code move}, as one step of a firing. */
  private record Step(List<Long> seqs, BatchMove<DueInstance> move) {}

  /** SCHEDULED → DISPATCHED at this leader's epoch: the epoch the due event carries. */
  private static BatchMove<DueInstance> dispatch(LeaseFence fence, long nowMs) {
    return BatchMove.from(SCHEDULED)
        .<DueInstance>to(DISPATCHED)
        .set("epoch = ?, dispatched_at_ms = ?", fence.epoch(), nowMs)
        .fencedBy(fence)
        .readBack(DueInstance.COLUMNS, DueInstance::read)
        .audit(fence.holder(), "due");
  }

  /** SCHEDULED → SKIPPED (a misfire or the concurrency policy), {@code reason} in the audit. */
  private static BatchMove<DueInstance> skip(LeaseFence fence, String reason, long nowMs) {
    return BatchMove.from(SCHEDULED)
        .<DueInstance>to(SKIPPED)
        .set("finished_at_ms = ?", nowMs)
        .fencedBy(fence)
        .readBack(DueInstance.COLUMNS, DueInstance::read)
        .audit(fence.holder(), reason);
  }

  /** The SCHEDULED rows among {@code seqs} (what the wheel fired), oldest due first. */
  List<DueInstance> findScheduledBySeq(Collection<Long> seqs) {
    // Every chunk on one connection: this runs on every firing.
    List<DueInstance> due =
        new ArrayList<>(
            jdbc.queryIn(
                "reading " + seqs.size() + " due instance(s)",
                seqs,
                in ->
                    "SELECT "
                        + DueInstance.COLUMNS
                        + " FROM ax_instance WHERE seq IN ("
                        + in
                        + ") AND status = ?",
                List.of(SCHEDULED.name()),
                DueInstance::read));
    due.sort(Comparator.comparingLong(DueInstance::dueAtMs));
    return due;
  }

  /** Tasks among {@code taskIds} that have an instance DISPATCHED or RUNNING now. */
  Set<String> tasksInFlight(Collection<String> taskIds) {
    return new HashSet<>(
        jdbc.queryIn(
            "checking runs in flight",
            taskIds,
            in ->
                "SELECT DISTINCT task_id FROM ax_instance WHERE task_id IN ("
                    + in
                    + ") AND status IN (?, ?)",
            List.of(DISPATCHED.name(), RUNNING.name()),
            rs -> rs.getString(1)));
  }

  /**
   * SCHEDULED instances due before {@code untilMs} and after the key {@code (afterDueMs,
   * afterSeq)}, ordered by (due, seq), at most {@code limit}: one page of the ticker's window.
   */
  List<WindowEntry> findWindowPage(long afterDueMs, long afterSeq, long untilMs, int limit) {
    return jdbc.query(
        "loading the ticker window",
        "SELECT i.seq, i.due_at_ms, t.trigger_group, i.task_id FROM ax_instance i"
            + " JOIN ax_task t ON t.task_id = i.task_id"
            + " WHERE i.status = ? AND i.due_at_ms < ?"
            + " AND (i.due_at_ms > ? OR (i.due_at_ms = ? AND i.seq > ?))"
            + " ORDER BY i.due_at_ms, i.seq LIMIT ?",
        Jdbc.Binder.values(SCHEDULED.name(), untilMs, afterDueMs, afterDueMs, afterSeq, limit),
        rs -> new WindowEntry(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4)));
  }

  /** The ids of the SCHEDULED instances of one task: a FIXED_DELAY chain's next firing, if any. */
  List<String> findScheduledOf(String taskId) {
    return jdbc.query(
        "reading scheduled instances of " + taskId,
        "SELECT instance_id FROM ax_instance WHERE task_id = ? AND status = ?",
        Jdbc.Binder.values(taskId, SCHEDULED.name()),
        rs -> rs.getString(1));
  }
}
