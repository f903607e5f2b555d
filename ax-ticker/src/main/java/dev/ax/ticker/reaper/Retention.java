package dev.ax.ticker.reaper;

import static dev.ax.common.model.InstanceStatus.CANCELLED;
import static dev.ax.common.model.InstanceStatus.DEAD;
import static dev.ax.common.model.InstanceStatus.SKIPPED;
import static dev.ax.common.model.InstanceStatus.SUCCESS;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.store.StoreException;
import dev.ax.common.time.Clock;
import dev.ax.ticker.reaper.RetentionStore.Batch;
import dev.ax.ticker.reaper.RetentionStore.Cursor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every table that grows with history from growing forever: deletes what is older than {@code
 * AX_RETENTION} ({@link RetentionStore} says what counts as finished), one small batch per {@link
 * #step}, each in its own short transaction.
 *
 * <p>The work goes in <em>cycles</em>. A cycle fixes its cutoff (now minus the retention) and has
 * one <em>round</em> per kind of row: finished instances of each terminal status (with their audit
 * rows and dead letters), applied commands, the operator log, switch records; then, once those are
 * done (a task or a version goes only when no instance of it is left), terminal tasks of each state
 * (with their commands, versions and edges) and superseded task versions. Steps take the rounds of
 * a phase in turn, a batch each, each round resuming from the cursor its last batch ended at; a
 * round whose batch read fewer rows than the batch size has reached the end of its range and is
 * done. A step that finds every round done ends the cycle and says it is caught up; the next step
 * starts a new cycle from the start of each range, with a new cutoff. So a backlog of any size is
 * worked off in batches of the same small cost, the live rows of a kind never slow another kind,
 * and rows a round must leave (an open dead letter's instance) are read once a cycle.
 *
 * <p>{@code ax.retention.overdue.seconds} is how long ago the oldest row retention should already
 * have deleted became deletable, 0 when there is none; it is read from the first entry of each
 * range at the start of a cycle and at most every {@link #OVERDUE_REFRESH} within one.
 *
 * <p>Threading: not thread-safe; {@link RetentionThread} calls it from its own thread only. The
 * gauge may be read from any thread.
 */
public final class Retention {

  /** How often the overdue gauge is read again within a long cycle. */
  static final Duration OVERDUE_REFRESH = Duration.ofSeconds(10);

  /** Batches failed in a row after which the cycle starts again from the start of each range. */
  static final int FAILURES_BEFORE_NEW_CYCLE = 3;

  private static final Logger log = LoggerFactory.getLogger(Retention.class);

  /** The task states whose rows retention removes ({@link TaskState#isRemovable}), in order. */
  static final List<TaskState> REMOVABLE_TASK_STATES =
      Arrays.stream(TaskState.values()).filter(TaskState::isRemovable).toList();

  /**
   * What one step did.
   *
   * @param rows the rows the batch read and deleted (instances, tasks, ...), not counting the
   *     children that went with them (audit rows, dead letters, ...): what the rate cap counts, so
   *     that its meaning does not depend on how many audit rows an instance has
   * @param caughtUp whether the cycle ended (nothing older was left)
   */
  public record Step(int rows, boolean caughtUp) {}

  /** One kind of row, worked in batches; {@code next} is the batch after {@code cursor}. */
  private interface Round {
    Batch next(long cutoffMs, Cursor cursor, int limit);
  }

  private final RetentionStore store;
  private final Clock clock;
  private final Duration retention;
  private final int batch;
  private final List<Round> rounds = new ArrayList<>();
  private final List<Integer> phases = new ArrayList<>();
  private final Map<RetentionKind, Counter> deleted = new EnumMap<>(RetentionKind.class);
  private final AtomicLong overdueMs = new AtomicLong();

  // The current cycle; cycleCutoffMs < 0 when none is under way.
  private long cycleCutoffMs = -1;
  private long overdueReadAtMs;
  private final List<Cursor> cursors = new ArrayList<>();
  private final List<Boolean> done = new ArrayList<>();
  private int turn;
  private int failedInARow;

  /**
   * @param retention rows older than this are deleted; zero: none ever
   * @param batch most rows of a kind one step reads
   */
  public Retention(
      RetentionStore store, Clock clock, Duration retention, int batch, MeterRegistry meters) {
    this.store = store;
    this.clock = clock;
    this.retention = retention;
    this.batch = batch;
    for (InstanceStatus status : List.of(SUCCESS, CANCELLED, SKIPPED, DEAD)) {
      add(
          0,
          (cutoffMs, cursor, limit) ->
              store.deleteInstances(status.name(), cutoffMs, cursor, limit));
    }
    add(
        0,
        (cutoffMs, cursor, limit) ->
            store.deleteOlderRows(RetentionKind.COMMANDS, cutoffMs, limit));
    add(
        0,
        (cutoffMs, cursor, limit) ->
            store.deleteOlderRows(RetentionKind.OPERATOR_LOG, cutoffMs, limit));
    add(0, (cutoffMs, cursor, limit) -> store.deleteSupersededSwitchRecords(cutoffMs));
    // After the instances: a task, or a version, goes once no instance of it is left.
    for (TaskState state : REMOVABLE_TASK_STATES) {
      add(1, (cutoffMs, cursor, limit) -> store.deleteTasks(state.name(), cutoffMs, cursor, limit));
    }
    add(1, store::deleteSupersededVersions);
    for (RetentionKind kind : RetentionKind.values()) {
      deleted.put(
          kind,
          Counter.builder("ax.retention.deleted")
              .description("rows deleted by retention, older than AX_RETENTION")
              .tag("kind", kind.tag)
              .register(meters));
    }
    Gauge.builder("ax.retention.overdue.seconds", overdueMs, ms -> ms.get() / 1000.0)
        .description(
            "how long ago the oldest row retention should already have deleted became deletable;"
                + " 0 when caught up")
        .register(meters);
  }

  private void add(int phase, Round round) {
    phases.add(phase);
    rounds.add(round);
  }

  public boolean enabled() {
    return !retention.isZero();
  }

  /**
   * One batch of the current cycle (starting one if none is under way). A batch that fails is tried
   * again from its round's cursor at a later step (the step reports itself caught up, so the thread
   * pauses first); {@link #FAILURES_BEFORE_NEW_CYCLE} failures in a row end the cycle, and the next
   * starts again from the start of each range.
   */
  public Step step() {
    if (cycleCutoffMs < 0) {
      startCycle();
    }
    try {
      refreshOverdueIfDue();
      int phase = currentPhase();
      for (int tried = 0; phase >= 0 && tried < rounds.size(); tried++) {
        int round = turn;
        turn = (turn + 1) % rounds.size();
        if (done.get(round) || phases.get(round) != phase) {
          continue;
        }
        Batch result = rounds.get(round).next(cycleCutoffMs, cursors.get(round), batch);
        cursors.set(round, result.next());
        done.set(round, result.read() < batch);
        count(result);
        failedInARow = 0;
        return new Step(result.read(), false);
      }
      endCycle();
      overdueMs.set(0);
      return new Step(0, true);
    } catch (StoreException e) {
      log.warn("Retention batch failed, tried again from its cursor: {}", e.getMessage());
    } catch (RuntimeException e) {
      log.error("Retention batch failed unexpectedly, tried again from its cursor", e);
    }
    // A lost batch (a deadlock, a lock wait, an outage) is tried again from the round's cursor
    // after a pause; only a batch that keeps failing restarts the cycle, from fresh cursors.
    if (++failedInARow >= FAILURES_BEFORE_NEW_CYCLE) {
      endCycle();
    }
    return new Step(0, true);
  }

  /** On a node that does not lead: no cycle under way, nothing overdue here. */
  public void standBy() {
    endCycle();
    overdueMs.set(0);
  }

  /** The lowest phase with a round not done; -1 when every round is done. */
  private int currentPhase() {
    int phase = -1;
    for (int i = 0; i < rounds.size(); i++) {
      if (!done.get(i) && (phase < 0 || phases.get(i) < phase)) {
        phase = phases.get(i);
      }
    }
    return phase;
  }

  private void startCycle() {
    cycleCutoffMs = Math.max(0, clock.millis() - retention.toMillis());
    cursors.clear();
    done.clear();
    for (int i = 0; i < rounds.size(); i++) {
      cursors.add(Cursor.START);
      done.add(false);
    }
    turn = 0;
    overdueReadAtMs = Long.MIN_VALUE;
  }

  private void endCycle() {
    cycleCutoffMs = -1;
  }

  private void refreshOverdueIfDue() {
    long nowMs = clock.millis();
    if (overdueReadAtMs != Long.MIN_VALUE && nowMs - overdueReadAtMs < OVERDUE_REFRESH.toMillis()) {
      return;
    }
    overdueReadAtMs = nowMs;
    long cutoffMs = nowMs - retention.toMillis();
    overdueMs.set(
        store.oldestDeletableMs(cutoffMs).map(at -> Math.max(0, cutoffMs - at)).orElse(0L));
  }

  private void count(Batch result) {
    result.deleted().forEach((kind, rows) -> deleted.get(kind).increment(rows));
    if (log.isDebugEnabled() && result.rows() > 0) {
      log.debug("Retention deleted {} (older than {})", result.deleted(), retention);
    }
  }

  /** The overdue gauge's value in milliseconds. */
  long overdueMs() {
    return overdueMs.get();
  }
}
