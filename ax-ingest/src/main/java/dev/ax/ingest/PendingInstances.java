package dev.ax.ingest;

import static dev.ax.common.model.InstanceStatus.CANCELLED;
import static dev.ax.common.model.InstanceStatus.PAUSED;
import static dev.ax.common.model.InstanceStatus.RUNNING;
import static dev.ax.common.model.InstanceStatus.SKIPPED;
import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.JdbcTransaction;
import dev.ax.common.store.NotRunEvent;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.PacketTransaction;
import dev.ax.common.store.Sql;
import dev.ax.ingest.TaskLifecycleStore.Request;
import dev.ax.ingest.TaskLifecycleStore.Result;
import dev.ax.ingest.TaskLifecycleStore.Transition;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The instance side of a lifecycle command ({@link TaskLifecycleStore}): the task's pending
 * instances, in the statuses the command moves, read {@code FOR UPDATE} (the locking read that
 * keeps a concurrent firing from leaving a live successor, see the store's class comment) and moved
 * by batch moves with their audit rows to the status the command sends them to; at a RESUME, the
 * held firings a periodic task's earliest one stands for are SKIPPED instead.
 *
 * <p>Thread-safety: stateless; every call works in the caller's transaction, on the caller's
 * thread.
 */
final class PendingInstances {

  private PendingInstances() {}

  /**
   * Moves the task's instances in {@code transition}'s from-statuses (and, when {@code
   * interrupting}, its RUNNING ones) to its to-status, in {@code tx}.
   *
   * @return how many moved (or were skipped), and for a RESUME the instances now SCHEDULED again
   */
  static Result.Applied move(
      PacketTransaction tx,
      Transition transition,
      Request request,
      boolean interrupting,
      Topics topics)
      throws SQLException {
    String auditReason = Sql.truncate(request.auditReason(transition), 512);
    List<InstanceStatus> fromStatuses = new ArrayList<>(transition.fromStatuses());
    if (interrupting) {
      fromStatuses.add(RUNNING);
    }
    int moved = 0;
    int pausedSkipped = 0;
    List<DueInstance> resumed = new ArrayList<>();
    Map<InstanceStatus, List<String>> pendingByStatus =
        lockedByStatus(tx.statements(), request.taskId(), fromStatuses);
    if (transition == Transition.RESUME && pendingByStatus.containsKey(PAUSED)) {
      pausedSkipped = skipSupersededAtResume(tx, request, pendingByStatus.get(PAUSED), topics);
      moved += pausedSkipped;
    }
    for (Map.Entry<InstanceStatus, List<String>> pending : pendingByStatus.entrySet()) {
      BatchMove.Builder<DueInstance> move = readingBack(pending.getKey(), transition.toStatus());
      move =
          transition.toStatus() == CANCELLED
              ? move.set("last_error = ?", auditReason)
              : move.set("owner = NULL");
      String why =
          pending.getKey() == RUNNING
              ? Sql.truncate(auditReason + "; its running attempt is interrupted", 512)
              : auditReason;
      List<DueInstance> won =
          tx.move(
              "instance_id",
              pending.getValue(),
              move.audit(request.actor(), why),
              request.nowMs(),
              false);
      moved += won.size();
      if (transition == Transition.RESUME) {
        resumed.addAll(won);
      }
    }
    return new Result.Applied(moved, resumed, pausedSkipped);
  }

  /** A batch move of instances from {@code from} to {@code to} that reads the won ones back. */
  static BatchMove.Builder<DueInstance> readingBack(InstanceStatus from, InstanceStatus to) {
    return BatchMove.from(from)
        .<DueInstance>to(to)
        .readBack(DueInstance.COLUMNS, DueInstance::read);
  }

  /**
   * A paused periodic task may hold two firings of its trigger: one the ticker fired just before
   * the PAUSE (DISPATCHED, not claimed yet) and the successor it created with it. Resumed, both
   * would be late, and each would stand for every missed firing; so unless the misfire policy is
   * FIRE_ALL (each missed firing runs, up to {@code maxFireAll}, whichever row plans it), only the
   * earliest is resumed and the later ones are SKIPPED here, with their audit rows. Instances that
   * stand for no slot (RUN_NOW, flow runs) and held runs (an attempt already made, a retry due)
   * always resume, and are not counted among the held firings.
   *
   * @param paused the task's PAUSED instance ids; the skipped ones are removed from it
   * @return how many were skipped
   */
  private static int skipSupersededAtResume(
      PacketTransaction tx, Request request, List<String> paused, Topics topics)
      throws SQLException {
    List<String> slotIds = paused.stream().filter(InstanceIds::isSlotId).toList();
    if (slotIds.size() < 2) {
      return 0;
    }
    // A held run (a slot that already ran and waits for its retry) extended the chain when it
    // first fired, and fires again as a retry that extends nothing: it resumes as itself and
    // cannot stand for the held firings, or skipping the chain's head would end the chain.
    Set<String> heldRuns = new HashSet<>();
    for (List<String> chunk : Sql.chunks(slotIds)) {
      heldRuns.addAll(
          tx.statements()
              .query(
                  "SELECT instance_id FROM ax_instance WHERE instance_id IN ("
                      + Sql.placeholders(chunk.size())
                      + ") AND attempt > 0",
                  values(chunk.toArray()),
                  rs -> rs.getString(1)));
    }
    List<String> slots =
        slotIds.stream()
            .filter(id -> !heldRuns.contains(id))
            .sorted(Comparator.comparingLong(InstanceIds::slotOf))
            .toList();
    if (slots.size() < 2) {
      return 0;
    }
    Optional<String> specJson =
        tx.statements()
            .queryFirst(
                "SELECT spec_json FROM ax_task WHERE task_id = ?",
                values(request.taskId()),
                rs -> rs.getString(1));
    if (specJson.isEmpty()) {
      return 0;
    }
    TaskSpec spec = TaskSpecJson.readStored(request.taskId(), specJson.get());
    boolean periodic =
        spec.trigger() instanceof Trigger.Cron || spec.trigger() instanceof Trigger.FixedRate;
    if (!periodic
        || spec.misfirePolicy() == MisfirePolicy.FIRE_ALL
        || spec.rules().catchUpWindow() != null) {
      return 0; // each held firing is planned by the catch-up rule: it may run
    }
    // Only slots already due: a later one still ahead is the chain's next firing, which the
    // earliest
    // one's catch-up plans as its successor (the same id): skipping it would end the chain.
    List<String> superseded =
        slots.subList(1, slots.size()).stream()
            .filter(id -> InstanceIds.slotOf(id) <= request.nowMs())
            .toList();
    if (superseded.isEmpty()) {
      return 0;
    }
    String why =
        request.auditReason(Transition.RESUME)
            + "; the earlier held firing "
            + slots.get(0)
            + " stands for this one ("
            + spec.misfirePolicy()
            + ")";
    BatchMove<DueInstance> skip =
        readingBack(PAUSED, SKIPPED)
            .set("owner = NULL")
            .audit(request.actor(), Sql.truncate(why, 512));
    List<DueInstance> skipped = tx.move("instance_id", superseded, skip, request.nowMs(), false);
    paused.removeAll(superseded);
    owePausedEvents(tx, skipped, slots.get(0), spec, request, topics);
    return skipped.size();
  }

  /** The completion events of held firings a RESUME skipped, {@code standing} standing for them. */
  private static void owePausedEvents(
      PacketTransaction tx,
      List<DueInstance> skipped,
      String standing,
      TaskSpec spec,
      Request request,
      Topics topics)
      throws SQLException {
    String event = "paused: held while the task was paused; " + standing + " stands for it";
    List<OutboxMessage> owed = new ArrayList<>();
    for (DueInstance row : skipped) {
      owed.add(
          NotRunEvent.of(
              topics,
              row,
              SKIPPED,
              event,
              spec.trigger().type(),
              request.actor(),
              request.nowMs()));
    }
    tx.outbox(owed, UUID.randomUUID().toString(), request.nowMs());
  }

  /** The task's instances in {@code statuses}, by status, locked (see the class comment). */
  private static Map<InstanceStatus, List<String>> lockedByStatus(
      JdbcTransaction statements, String taskId, List<InstanceStatus> statuses)
      throws SQLException {
    List<Object> bound = new ArrayList<>();
    bound.add(taskId);
    statuses.forEach(status -> bound.add(status.name()));
    Map<InstanceStatus, List<String>> byStatus = new EnumMap<>(InstanceStatus.class);
    statements
        .query(
            // The (task_id, status) index: the read visits (and locks) the rows of these statuses
            // only, never a RUNNING row a dispatcher is ending (it holds that row, then the row of
            // its ONCE task, OneShotEnd): a scan of all the task's rows would wait for it while
            // holding the task's row, a deadlock.
            "SELECT instance_id, status FROM ax_instance FORCE INDEX (ax_instance_task_status)"
                + " WHERE task_id = ? AND status IN ("
                + Sql.placeholders(statuses.size())
                + ") FOR UPDATE",
            values(bound.toArray()),
            rs -> Map.entry(rs.getString(1), InstanceStatus.valueOf(rs.getString(2))))
        .forEach(
            row ->
                byStatus.computeIfAbsent(row.getValue(), s -> new ArrayList<>()).add(row.getKey()));
    return byStatus;
  }
}
