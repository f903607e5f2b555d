package dev.ax.ticker.backfill;

import static dev.ax.common.model.InstanceStatus.SCHEDULED;
import static dev.ax.common.model.InstanceStatus.SKIPPED;
import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerType;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.schedule.Slots;
import dev.ax.common.store.BackfillStore;
import dev.ax.common.store.BackfillStore.Backfill;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.JdbcTransaction;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.NotRunEvent;
import dev.ax.common.store.OneShotEnd;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.PacketTransaction;
import dev.ax.common.store.Sql;
import dev.ax.common.store.TaskGate;
import dev.ax.common.trace.TraceIds;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * One step of one backfill, in one transaction: the next firings of its range created, its cursor
 * and counts moved. The transaction passes the task gate first ({@link TaskGate}, the task's row
 * share-locked before any instance row), then locks the backfill's row, so a lifecycle command or a
 * cancel committed before is seen, and two leaders (one stale) cannot move one cursor twice: the
 * second waits, then reads the first's cursor.
 *
 * <ul>
 *   <li>Task ACTIVE: firings created SCHEDULED, due now, ids {@code taskId@backfill:<slot>} at the
 *       task's current version, each with an audit row {@code backfill <id> of slot <time>}.
 *   <li>Task PAUSED: nothing; the backfill waits for the RESUME.
 *   <li>Task CANCELLED, DELETED, ENDED, gone, or no longer CRON or FIXED_RATE: the backfill is
 *       CANCELLED with the reason.
 * </ul>
 *
 * A slot whose firing exists already (this backfill's after a crash, another backfill's, or the
 * schedule's own {@code taskId@slot}) is passed over and counted as existing: nothing is created
 * twice. How many firings a step may create is the smaller of its share of the pace and what the
 * overlap policy leaves room for (see {@link #step}).
 *
 * <p>Thread-safe (stateless over a pool); the ticker's chores thread calls it.
 */
final class BackfillFirings {

  /** Most slots one step looks at, created or passed over (a rerun passes over every slot). */
  static final int MAX_EXAMINED = 1_000;

  /** The audit reason of a backfill firing recorded SKIPPED. */
  static final String SKIPPED_REASON = "overlap: a run of the task was in flight (backfill %s)";

  /** Statuses in which an instance stands for a run in flight, for the overlap rules. */
  private static final Set<InstanceStatus> RUNS =
      Set.of(
          InstanceStatus.DISPATCHED,
          InstanceStatus.RUNNING,
          InstanceStatus.RETRYING,
          InstanceStatus.FAILED,
          InstanceStatus.TIMEOUT);

  /** The live instances of one task, read by the (task_id, status) index. */
  static final String LIVE_OF_TASK_SQL =
      "SELECT instance_id, status FROM ax_instance FORCE INDEX (ax_instance_task_status)"
          + " WHERE task_id = ? AND status IN ("
          + OneShotEnd.LIVE_STATUSES
          + ")";

  /**
   * What a step did: the firings it created SCHEDULED (to announce, with their seq), and its
   * counts; {@code ended} when the backfill is DONE or CANCELLED now.
   */
  record Step(
      List<NewInstance> scheduled,
      Map<String, Long> seqByInstanceId,
      int created,
      int skipped,
      int existing,
      boolean ended) {

    static final Step NOTHING = new Step(List.of(), Map.of(), 0, 0, 0, false);
  }

  private final Jdbc jdbc;
  private final FireTimes fireTimes;
  private final Topics topics;

  /**
   * @param topics where the completion events of the firings it records SKIPPED go
   */
  BackfillFirings(DataSource dataSource, FireTimes fireTimes, Topics topics) {
    this.jdbc = new Jdbc(dataSource);
    this.fireTimes = fireTimes;
    this.topics = topics;
  }

  /**
   * Creates up to {@code budget} firings of {@code backfill}'s next slots, as its overlap allows:
   *
   * <ul>
   *   <li>ALLOW_ALL: as many as leave at most {@code maxInFlight} of its firings live.
   *   <li>BUFFER_ONE, BUFFER_ALL: one after another: one firing, and only when the task has no run
   *       in flight (its schedule's or the backfill's) and no backfill firing waiting.
   *   <li>SKIP: as for ALLOW_ALL, but a firing created while the task has a run in flight or
   *       another firing created or waiting is recorded SKIPPED (reason {@link #SKIPPED_REASON}):
   *       at most one of a step runs, and only when nothing of the task runs.
   * </ul>
   */
  Step step(Backfill backfill, int budget, int maxInFlight, String actor, long nowMs) {
    return jdbc.inPacketTransaction(
        "backfill " + backfill.backfillId() + " of task " + backfill.taskId(),
        tx ->
            stepIn(
                tx, backfill.backfillId(), backfill.taskId(), budget, maxInFlight, actor, nowMs));
  }

  private Step stepIn(
      PacketTransaction tx,
      String backfillId,
      String taskId,
      int budget,
      int maxInFlight,
      String actor,
      long nowMs)
      throws SQLException {
    JdbcTransaction statements = tx.statements();
    Optional<TaskGate.Held> task = TaskGate.hold(statements, taskId);
    if (task.isPresent() && task.get().isPaused()) {
      return Step.NOTHING; // waits for the RESUME
    }
    Optional<Backfill> locked =
        statements.queryFirst(
            "SELECT "
                + BackfillStore.COLUMNS
                + " FROM ax_backfill WHERE backfill_id = ? FOR UPDATE",
            values(backfillId),
            BackfillStore::read);
    if (locked.isEmpty() || locked.get().state() != BackfillStore.State.RUNNING) {
      return Step.NOTHING; // cancelled meanwhile
    }
    Backfill backfill = locked.get();
    if (task.isEmpty() || !task.get().isActive()) {
      end(
          statements,
          backfill,
          "task " + taskId + " is " + task.map(t -> t.state().name()).orElse("gone"),
          nowMs);
      return new Step(List.of(), Map.of(), 0, 0, 0, true);
    }
    TaskNow now = taskNow(statements, taskId);
    Trigger trigger = now.trigger();
    if (!(trigger instanceof Trigger.Cron || trigger instanceof Trigger.FixedRate)) {
      end(statements, backfill, "task " + taskId + " is no longer CRON or FIXED_RATE", nowMs);
      return new Step(List.of(), Map.of(), 0, 0, 0, true);
    }
    Live live = live(statements, taskId);
    int room = room(backfill.overlap(), live, maxInFlight);
    if (room <= 0 || budget <= 0) {
      return Step.NOTHING;
    }
    return create(
        tx, backfill, task.get().version(), now, Math.min(room, budget), live, actor, nowMs);
  }

  private Step create(
      PacketTransaction tx,
      Backfill backfill,
      int version,
      TaskNow task,
      int wanted,
      Live live,
      String actor,
      long nowMs)
      throws SQLException {
    Slots slots = backfill.range().slots(task.trigger(), fireTimes);
    long cursorMs = backfill.cursorMs();
    int examined = 0;
    int existing = 0;
    boolean done = false;
    List<NewInstance> made = new ArrayList<>();
    Map<String, Long> seqs = new java.util.HashMap<>();
    while (made.size() < wanted && examined < MAX_EXAMINED) {
      List<Long> batch = nextSlots(slots, cursorMs, backfill.toMs(), wanted - made.size());
      if (batch.isEmpty()) {
        done = true;
        break;
      }
      examined += batch.size();
      cursorMs = batch.get(batch.size() - 1);
      Set<Long> fired = firedBySchedule(tx.statements(), backfill.taskId(), batch);
      List<NewInstance> toCreate = new ArrayList<>();
      for (long slotMs : batch) {
        if (!fired.contains(slotMs)) {
          toCreate.add(firing(backfill, version, task.traceId(), slotMs, nowMs));
        }
      }
      Map<String, Long> created = tx.create(toCreate, actor, nowMs);
      for (NewInstance instance : toCreate) {
        if (created.containsKey(instance.instanceId())) {
          made.add(instance);
          seqs.put(instance.instanceId(), created.get(instance.instanceId()));
        }
      }
      existing += batch.size() - created.size();
    }
    if (!done) {
      done = nextSlots(slots, cursorMs, backfill.toMs(), 1).isEmpty();
    }
    List<NewInstance> scheduled = made;
    int skipped = 0;
    if (backfill.overlap() == OverlapPolicy.SKIP && !made.isEmpty()) {
      int runs = live.runInFlight() || live.backfillWaiting() > 0 ? 0 : 1;
      List<NewInstance> toSkip = made.subList(runs, made.size());
      skipped = skip(tx, backfill, task.trigger().type(), toSkip, seqs, actor, nowMs);
      scheduled = made.subList(0, runs);
    }
    tx.statements()
        .update(
            "UPDATE ax_backfill SET cursor_ms = ?, created_count = created_count + ?,"
                + " skipped_count = skipped_count + ?, existing_count = existing_count + ?,"
                + " state = ?, ended_reason = ?, updated_at_ms = ?"
                + " WHERE backfill_id = ? AND state = 'RUNNING'",
            values(
                cursorMs,
                made.size(),
                skipped,
                existing,
                (done ? BackfillStore.State.DONE : BackfillStore.State.RUNNING).name(),
                done ? "every slot of the range handled" : null,
                nowMs,
                backfill.backfillId()));
    return new Step(List.copyOf(scheduled), seqs, made.size(), skipped, existing, done);
  }

  /** The firing of {@code slotMs}: due now, of the task's current version. */
  private static NewInstance firing(
      Backfill backfill, int version, String taskTraceId, long slotMs, long nowMs) {
    String instanceId = InstanceIds.backfillOf(backfill.taskId(), slotMs);
    return new NewInstance(
        instanceId,
        backfill.taskId(),
        version,
        nowMs,
        TraceIds.forRun(taskTraceId, instanceId),
        "backfill " + backfill.backfillId() + " of slot " + Instant.ofEpochMilli(slotMs),
        null,
        false);
  }

  /** Up to {@code n} slots after {@code cursorMs} and at most {@code toMs}, oldest first. */
  static List<Long> nextSlots(Slots slots, long cursorMs, long toMs, int n) {
    List<Long> next = new ArrayList<>();
    Instant after = Instant.ofEpochMilli(cursorMs);
    while (next.size() < n) {
      Optional<Instant> slot = slots.nextAfter(after);
      if (slot.isEmpty() || slot.get().toEpochMilli() > toMs) {
        break;
      }
      next.add(slot.get().toEpochMilli());
      after = slot.get();
    }
    return next;
  }

  /** The slots of {@code batch} whose schedule firing ({@code taskId@slot}) exists. */
  private static Set<Long> firedBySchedule(JdbcTransaction tx, String taskId, List<Long> batch)
      throws SQLException {
    List<String> ids = batch.stream().map(slot -> InstanceIds.of(taskId, slot)).toList();
    return new HashSet<>(
        tx.queryIn(
            ids,
            in -> "SELECT instance_id FROM ax_instance WHERE instance_id IN (" + in + ")",
            List.of(),
            rs -> InstanceIds.slotOf(rs.getString(1))));
  }

  /**
   * Records {@code toSkip} SKIPPED with their audit rows and their completion events in the outbox
   * (the dispatchers' relay sends them), as every firing that does not run is.
   */
  private int skip(
      PacketTransaction tx,
      Backfill backfill,
      TriggerType type,
      List<NewInstance> toSkip,
      Map<String, Long> seqs,
      String actor,
      long nowMs)
      throws SQLException {
    if (toSkip.isEmpty()) {
      return 0;
    }
    List<Long> keys = toSkip.stream().map(i -> seqs.get(i.instanceId())).toList();
    String reason = String.format(SKIPPED_REASON, backfill.backfillId());
    BatchMove<DueInstance> move =
        BatchMove.from(SCHEDULED)
            .<DueInstance>to(SKIPPED)
            .set("owner = NULL")
            .readBack(DueInstance.COLUMNS, DueInstance::read)
            .audit(actor, reason);
    List<DueInstance> moved = tx.move("seq", keys, move, nowMs, false);
    List<OutboxMessage> owed = new ArrayList<>(moved.size());
    for (DueInstance row : moved) {
      owed.add(NotRunEvent.of(topics, row, SKIPPED, reason, type, actor, nowMs));
    }
    tx.outbox(owed, UUID.randomUUID().toString(), nowMs);
    return moved.size();
  }

  /** What may be created now, by the overlap policy. */
  static int room(OverlapPolicy overlap, Live live, int maxInFlight) {
    return switch (overlap) {
      case BUFFER_ONE, BUFFER_ALL, CANCEL_OTHER ->
          live.runInFlight() || live.backfillLive() > 0 ? 0 : 1;
      case ALLOW_ALL, SKIP -> Math.max(0, maxInFlight - live.backfillLive());
    };
  }

  /**
   * The task's live instances as the overlap rules see them.
   *
   * @param runInFlight an instance of the task DISPATCHED, RUNNING or RETRYING (or between an
   *     attempt's end and its retry)
   * @param backfillLive backfill firings not ended yet
   * @param backfillWaiting backfill firings SCHEDULED or PAUSED
   */
  record Live(boolean runInFlight, int backfillLive, int backfillWaiting) {}

  private static Live live(JdbcTransaction tx, String taskId) throws SQLException {
    boolean runInFlight = false;
    int backfillLive = 0;
    int backfillWaiting = 0;
    for (Object[] row :
        tx.query(
            LIVE_OF_TASK_SQL,
            values(taskId),
            rs -> new Object[] {rs.getString(1), InstanceStatus.valueOf(rs.getString(2))})) {
      InstanceStatus status = (InstanceStatus) row[1];
      runInFlight |= RUNS.contains(status);
      if (InstanceIds.isBackfillId((String) row[0])) {
        backfillLive++;
        backfillWaiting += RUNS.contains(status) ? 0 : 1;
      }
    }
    return new Live(runInFlight, backfillLive, backfillWaiting);
  }

  /** The task's trigger and trace as its row holds them now (its row is share-locked). */
  private record TaskNow(Trigger trigger, String traceId) {}

  private static TaskNow taskNow(JdbcTransaction tx, String taskId) throws SQLException {
    return tx.queryFirst(
            "SELECT spec_json, trace_id FROM ax_task WHERE task_id = ?",
            values(taskId),
            rs ->
                new TaskNow(
                    TaskSpecJson.readStored(taskId, rs.getString(1)).trigger(), rs.getString(2)))
        .orElseThrow();
  }

  private static void end(JdbcTransaction tx, Backfill backfill, String why, long nowMs)
      throws SQLException {
    tx.update(
        "UPDATE ax_backfill SET state = ?, ended_reason = ?, updated_at_ms = ?"
            + " WHERE backfill_id = ? AND state = 'RUNNING'",
        values(
            BackfillStore.State.CANCELLED.name(),
            Sql.truncate(why, 512),
            nowMs,
            backfill.backfillId()));
  }
}
