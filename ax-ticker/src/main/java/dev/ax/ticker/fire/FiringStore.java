package dev.ax.ticker.fire;

import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.PAUSED;
import static dev.ax.common.model.InstanceStatus.RETRYING;
import static dev.ax.common.model.InstanceStatus.RUNNING;
import static dev.ax.common.model.InstanceStatus.SCHEDULED;

import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.JdbcTransaction;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskGate;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The ticker's SQL over {@code ax_instance}: the window of SCHEDULED instances its wheel is loaded
 * from, the rows a batch the wheel fired still finds SCHEDULED, the tasks with a run in flight (the
 * concurrency check), the firing itself, and the FIXED_DELAY chainer's next firings. Only the
 * ticker uses it; the reaper's SQL is {@code reaper.ReaperStore}'s.
 *
 * <p>Every write of a firing is fenced by the leader's lease: a stale leader moves and creates
 * nothing. The chainer's are not (it runs on every ticker node, in one consumer group): its
 * deterministic ids make a repeated chaining create nothing, and it passes the task gate.
 *
 * <p>Thread-safe (stateless over a pool).
 */
public final class FiringStore {

  /**
   * What one firing did: the rows it dispatched and skipped, the successors it created, and the
   * firings that did not run (skipped, or runs cancelled) with the events they owe, written to the
   * outbox under {@code outboxToken} in the same transaction (null: none owed), and the rows it
   * held (their hold recorded, their successors created).
   */
  record FireResult(
      List<DueInstance> dispatched,
      List<DueInstance> skipped,
      Map<String, Long> created,
      List<NotRun> notRun,
      String outboxToken,
      List<OutboxMessage> owed,
      List<DueInstance> held) {

    FireResult(List<DueInstance> dispatched, List<DueInstance> skipped, Map<String, Long> created) {
      this(dispatched, skipped, created, List.of(), null, List.of(), List.of());
    }
  }

  /** A firing that did not run: a row SKIPPED, or a run CANCELLED, and why. */
  record NotRun(DueInstance row, InstanceStatus status, String reason) {}

  /** The events the firings that did not run owe (the ticker's completion events). */
  interface NotRunEvents {
    List<OutboxMessage> owed(List<NotRun> notRun, String actor, long nowMs);

    NotRunEvents NONE = (notRun, actor, nowMs) -> List.of();
  }

  /** A SCHEDULED instance as the window loader sees it. */
  public record WindowEntry(
      long seq, String instanceId, long dueAtMs, String triggerGroup, String taskId) {}

  private final Jdbc jdbc;

  public FiringStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /** What each of {@code taskIds} has live for its overlap policy ({@link TaskOverlapRead}). */
  Map<String, TaskOverlap> overlapOf(Collection<String> taskIds, long nowMs) {
    return TaskOverlapRead.of(jdbc, taskIds, nowMs);
  }

  /**
   * One firing, in one transaction fenced by the leader's lease: SCHEDULED → DISPATCHED for the
   * plan's dispatches, SCHEDULED → SKIPPED for each group of its skips (the key is the audit
   * reason), SCHEDULED → SCHEDULED (recorded, due unchanged) for the rows it holds, the runs
   * CANCEL_OTHER cancels → CANCELLED, and, for each row that moved but the cancelled runs, its
   * successors (the next firings of periodic tasks), created SCHEDULED. A crash cannot leave a
   * periodic task without its next firing. The firings that did not run get their completion events
   * in the outbox ({@code events}). Without successors or events (one-shot tasks only), the last
   * move's packet commits: one round trip for a batch of up to 500.
   */
  FireResult fire(FirePlan plan, LeaseFence fence, long nowMs, NotRunEvents events) {
    List<FiringSteps.Step> steps = FiringSteps.of(plan, fence, nowMs);
    if (steps.isEmpty()) {
      return new FireResult(List.of(), List.of(), Map.of());
    }
    Map<String, List<NewInstance>> successorsByInstanceId = plan.successors();
    boolean mayWriteMore =
        !successorsByInstanceId.isEmpty() || steps.stream().anyMatch(step -> step.notRun() != null);
    return jdbc.inPacketTransaction(
        "firing " + plan.dispatch().size() + " instance(s)",
        tx -> {
          List<DueInstance> dispatched = new ArrayList<>();
          List<DueInstance> skipped = new ArrayList<>();
          List<DueInstance> held = new ArrayList<>();
          List<NotRun> notRun = new ArrayList<>();
          List<NewInstance> successors = new ArrayList<>();
          for (int i = 0; i < steps.size(); i++) {
            FiringSteps.Step step = steps.get(i);
            // Without anything else to write, the last move's packet carries the commit.
            boolean commits = !mayWriteMore && i == steps.size() - 1;
            List<DueInstance> moved = tx.move("seq", step.seqs(), step.move(), nowMs, commits);
            switch (step.kind()) {
              case DISPATCH -> dispatched.addAll(moved);
              case SKIP -> skipped.addAll(moved);
              case HOLD -> held.addAll(moved);
              default -> {}
            }
            if (step.notRun() != null) {
              moved.forEach(row -> notRun.add(new NotRun(row, step.notRun(), step.reason())));
            }
            // A row that did not move (a lost race, a lapsed fence) owes no successor.
            if (step.kind() != FiringSteps.Kind.CANCEL) {
              moved.forEach(
                  row ->
                      successors.addAll(
                          successorsByInstanceId.getOrDefault(row.instanceId(), List.of())));
            }
          }
          Map<String, Long> created =
              successors.isEmpty() ? Map.of() : tx.create(successors, fence.holder(), nowMs);
          List<OutboxMessage> owed =
              notRun.isEmpty() ? List.of() : events.owed(notRun, fence.holder(), nowMs);
          String token = owed.isEmpty() ? null : UUID.randomUUID().toString();
          if (token != null) {
            tx.outbox(owed, token, nowMs);
          }
          return new FireResult(dispatched, skipped, created, notRun, token, owed, held);
        });
  }

  /**
   * One page of the window: SCHEDULED rows due before a time, past a (due, instance id) watermark,
   * in (due, instance id) order, which is the order of the {@code (status, due_at_ms)} index (its
   * entries end with the primary key): each page reads its own rows of the index and sorts nothing.
   * Ordered by seq, as it once was, every page sorted every row left in the window.
   */
  static final String WINDOW_PAGE =
      "SELECT i.seq, i.instance_id, i.due_at_ms, t.trigger_group, i.task_id FROM ax_instance i"
          + " FORCE INDEX (ax_instance_status_due)"
          + " JOIN ax_task t ON t.task_id = i.task_id"
          + " WHERE i.status = ? AND i.due_at_ms < ?"
          + " AND (i.due_at_ms > ? OR (i.due_at_ms = ? AND i.instance_id > ?))"
          + " ORDER BY i.due_at_ms, i.instance_id LIMIT ?";

  /** The SCHEDULED rows among the seqs of {@code in} (placeholders), then the status. */
  static String scheduledBySeqSql(String in) {
    return "SELECT "
        + DueInstance.COLUMNS
        + " FROM ax_instance WHERE seq IN ("
        + in
        + ") AND status = ?";
  }

  /** The statuses of a run in flight: what {@link #tasksInFlight} looks for. */
  static final List<InstanceStatus> IN_FLIGHT = List.of(DISPATCHED, RUNNING, RETRYING);

  /**
   * {@link #tasksInFlight}'s read ({@link TasksWithInstances}): the batch's tasks' live rows, not
   * their history, nor every task's rows in those statuses.
   */
  static String tasksInFlightSql(String in) {
    return TasksWithInstances.sql(in, IN_FLIGHT.size());
  }

  /**
   * As {@link #tasksInFlightSql}, with each task's instances in two statuses (the index holds the
   * instance id: its primary key).
   */
  static String pendingOfTasksSql(String in) {
    return "SELECT task_id, status, instance_id FROM ax_instance"
        + " FORCE INDEX (ax_instance_task_status) WHERE task_id IN ("
        + in
        + ") AND status IN (?, ?)";
  }

  /** The SCHEDULED rows among {@code seqs} (what the wheel fired), oldest due first. */
  List<DueInstance> findScheduledBySeq(Collection<Long> seqs) {
    // Every chunk on one connection: this runs on every firing.
    List<DueInstance> due =
        new ArrayList<>(
            jdbc.queryIn(
                "reading " + seqs.size() + " due instance(s)",
                seqs,
                FiringStore::scheduledBySeqSql,
                List.of(SCHEDULED.name()),
                DueInstance::read));
    due.sort(Comparator.comparingLong(DueInstance::dueAtMs));
    return due;
  }

  /**
   * Tasks among {@code taskIds} with a live attempt now: an instance DISPATCHED, RUNNING, or
   * RETRYING (a failed attempt waiting out its backoff is still the same firing, not over yet: a
   * task that must not overlap itself must not fire again meanwhile). A run taken back by the
   * reaper is DISPATCHED again, so it counts too. FAILED and TIMEOUT never stay: their follow-up
   * (RETRYING or DEAD) is written in the same transaction.
   */
  Set<String> tasksInFlight(Collection<String> taskIds) {
    return TasksWithInstances.among(jdbc, "checking runs in flight", taskIds, IN_FLIGHT);
  }

  /**
   * SCHEDULED instances due before {@code untilMs} and after the key {@code (afterDueMs,
   * afterInstanceId)}, ordered by (due, instance id), at most {@code limit}: one page of the
   * ticker's window.
   */
  public List<WindowEntry> findWindowPage(
      long afterDueMs, String afterInstanceId, long untilMs, int limit) {
    return jdbc.query(
        "loading the ticker window",
        WINDOW_PAGE,
        Jdbc.Binder.values(
            SCHEDULED.name(), untilMs, afterDueMs, afterDueMs, afterInstanceId, limit),
        rs ->
            new WindowEntry(
                rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getString(5)));
  }

  /**
   * Plans a FIXED_DELAY task's next firing from its spec as the chaining transaction found it (the
   * spec of the locked {@code version}); empty for none (e.g. the trigger is no longer
   * FIXED_DELAY).
   */
  @FunctionalInterface
  interface ChainPlan {
    Optional<NewInstance> next(String taskId, TaskSpec spec, int version);
  }

  /**
   * What {@link #chainFixedDelay} created: the firings created SCHEDULED (to announce), with their
   * seq by instance id, and how many were created PAUSED (a RESUME announces those).
   */
  record Chained(List<NewInstance> scheduled, Map<String, Long> seqByInstanceId, int paused) {}

  /**
   * The next firings of FIXED_DELAY tasks whose run ended, in one transaction that passes the task
   * gate: each task's state and version are read under its shared lock ({@link TaskGate}), before
   * any instance row is read or written, so a CANCEL, DELETE or PAUSE committed before is seen and
   * one that comes later waits for this commit and then finds (and moves) the new firing.
   *
   * <ul>
   *   <li>ACTIVE: the firing is created SCHEDULED, unless the task has a SCHEDULED instance already
   *       (one chain per task).
   *   <li>PAUSED: it is created and held PAUSED (a RESUME fires it, as any paused instance), unless
   *       the task has a SCHEDULED or PAUSED instance already.
   *   <li>CANCELLED, DELETED, or no task row: nothing; the chain ended with the run.
   * </ul>
   *
   * @param readBefore the tasks as read before the transaction, by id; a task whose locked version
   *     differs is read again in it, so the plan always sees the spec of the version it creates
   */
  Chained chainFixedDelay(
      Map<String, StoredTask> readBefore, ChainPlan plan, String actor, long nowMs) {
    if (readBefore.isEmpty()) {
      return new Chained(List.of(), Map.of(), 0);
    }
    return jdbc.inPacketTransaction(
        "chaining " + readBefore.size() + " fixed-delay task(s)",
        tx -> {
          JdbcTransaction statements = tx.statements();
          Map<String, TaskGate.Held> held = TaskGate.holdAll(statements, readBefore.keySet());
          Map<String, Set<InstanceStatus>> pending = pendingStatuses(statements, held.keySet());
          List<NewInstance> scheduled = new ArrayList<>();
          List<NewInstance> paused = new ArrayList<>();
          for (TaskGate.Held task : held.values()) {
            Set<InstanceStatus> has = pending.getOrDefault(task.taskId(), Set.of());
            boolean hasNext = has.contains(SCHEDULED) || (task.isPaused() && has.contains(PAUSED));
            if (!(task.isActive() || task.isPaused()) || hasNext) {
              continue;
            }
            StoredTask before = readBefore.get(task.taskId());
            TaskSpec spec =
                before.version() == task.version()
                    ? before.spec()
                    : specOf(statements, task.taskId());
            plan.next(task.taskId(), spec, task.version())
                .ifPresent(next -> (task.isPaused() ? paused : scheduled).add(next));
          }
          List<NewInstance> all = new ArrayList<>(scheduled);
          all.addAll(paused);
          Map<String, Long> created = tx.create(all, actor, nowMs);
          List<Long> toHold = new ArrayList<>();
          for (NewInstance next : paused) {
            Optional.ofNullable(created.get(next.instanceId())).ifPresent(toHold::add);
          }
          int heldPaused =
              toHold.isEmpty() ? 0 : tx.move("seq", toHold, hold(actor), nowMs, false).size();
          return new Chained(scheduled, created, heldPaused);
        });
  }

  /** A firing created for a paused task waits PAUSED, as ingest holds one (its createPaused). */
  private static BatchMove<Long> hold(String actor) {
    return BatchMove.from(SCHEDULED)
        .<Long>to(PAUSED)
        .set("owner = NULL")
        .readBack("seq", rs -> rs.getLong(1))
        .audit(actor, "triggered while its task is paused: waits for RESUME");
  }

  /**
   * The SCHEDULED and PAUSED statuses each of {@code taskIds} has a link of its chain in (plain
   * read). Only slot instances count: RUN_NOW's extra run (or a flow's) waiting to fire extends
   * nothing when it ends, so it must not stand for the chain's next firing.
   */
  private static Map<String, Set<InstanceStatus>> pendingStatuses(
      JdbcTransaction statements, Collection<String> taskIds) throws SQLException {
    Map<String, Set<InstanceStatus>> pending = new HashMap<>();
    if (taskIds.isEmpty()) {
      return pending;
    }
    statements
        .queryIn(
            taskIds,
            FiringStore::pendingOfTasksSql,
            List.of(SCHEDULED.name(), PAUSED.name()),
            rs ->
                new Pending(
                    rs.getString(1), InstanceStatus.valueOf(rs.getString(2)), rs.getString(3)))
        .stream()
        .filter(row -> InstanceIds.isSlotId(row.instanceId()))
        .forEach(
            row ->
                pending
                    .computeIfAbsent(row.taskId(), id -> EnumSet.noneOf(InstanceStatus.class))
                    .add(row.status()));
    return pending;
  }

  /** An instance of a task being chained, SCHEDULED or PAUSED. */
  private record Pending(String taskId, InstanceStatus status, String instanceId) {}

  /** The spec of {@code taskId} as stored now (its row is locked by the caller). */
  private static TaskSpec specOf(JdbcTransaction statements, String taskId) throws SQLException {
    String json =
        statements
            .queryFirst(
                "SELECT spec_json FROM ax_task WHERE task_id = ?",
                Jdbc.Binder.values(taskId),
                rs -> rs.getString(1))
            .orElseThrow(() -> new IllegalStateException("task " + taskId + " is locked but gone"));
    return TaskSpecJson.readStored(taskId, json);
  }
}
