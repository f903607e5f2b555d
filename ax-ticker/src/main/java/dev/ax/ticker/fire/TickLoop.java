package dev.ax.ticker.fire;

import dev.ax.common.model.TriggerGroups;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.StoreException;
import dev.ax.common.store.StoredTask;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.common.wheel.AddResult;
import dev.ax.common.wheel.TimingWheel;
import dev.ax.ticker.fire.FiringStore.FireResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ticker's heart: one owning thread drives a {@link TimingWheel} of instance keys and fires
 * what falls due, in batches.
 *
 * <p><b>Threading.</b> Only the owner thread touches the wheel, the ready list and the firing
 * state; other threads (the window loader, the announcement consumer) hand entries over through a
 * bounded queue with {@link #offer}, so nothing here needs a lock. An offer that finds the queue
 * full, or an entry the wheel cannot hold, is dropped and flags {@link #needsFullReload()}: the
 * instance is still SCHEDULED in the database and the next full load brings it back.
 *
 * <p><b>Each {@link #step()}:</b> if this node does not lead, hold nothing; if it leads at a new
 * epoch, drop what it held (the loader rebuilds it from the database). Move handed-over entries
 * into the wheel; entries already due go to a ready list, oldest first. If the clock is unstable,
 * fire nothing. Otherwise take the ready list and advance the wheel to now plus the emit-ahead
 * ({@code AX_TICKER_EMIT_AHEAD}, 100 ms by default), at most {@code maxBatch} instances (what the
 * wheel hands out beyond that, many due at one instant, goes to the ready list), and fire them:
 * read the rows still SCHEDULED, plan (misfires, concurrency, successors; see {@link FirePlanner}),
 * apply the plan in one fenced transaction, emit due events, and put the successors due within the
 * horizon straight into the wheel. If the database fails the batch goes back to the ready list and
 * is tried again.
 *
 * <p><b>Trigger groups.</b> The wheel batches entries by a small int per trigger group ({@link
 * TriggerGroupIds}); an id is held while an entry of its group is in the wheel and freed for reuse
 * when the last one leaves it, by whichever path: handed out to fire, not added (already held or
 * due, or the wheel full), or dropped when the wheel is cleared on a change of leadership. The loop
 * never removes single entries (a cancelled instance stays in the wheel and is skipped when its row
 * is no longer SCHEDULED), and a reload re-offers entries already held, which are not added again.
 *
 * <p>Time comes only from the injected {@link Clock}; the wheel never moves back, so a clock that
 * holds still or steps back fires nothing early.
 */
public final class TickLoop {

  private static final Logger log = LoggerFactory.getLogger(TickLoop.class);
  static final long MAX_IDLE_WAIT_MS = 50;
  static final long RETRY_WAIT_MS = 500;
  static final long DELAY_RECHECK_MS = 1000;

  private final Clock clock;
  private final Supplier<Optional<LeaseFence>> leadership;
  private final TickerPort port;
  private final FirePlanner planner;
  private final TriggerGroupIds groups = new TriggerGroupIds();
  private final BlockingQueue<WheelEntry> handOff;
  private final TimingWheel wheel;
  private final TickLimits limits;
  private final FiringMeters firingMeters;
  private final Counter dropped;
  private final Counter clockHolds;
  private final MeterRegistry meters;

  private final HeldFirings held = new HeldFirings();

  private final LinkedHashSet<Long> ready = new LinkedHashSet<>();
  private long ledEpoch = -1;
  private volatile boolean fullReloadNeeded = true;
  private volatile long newEpochSignal = -1;

  public TickLoop(
      Clock clock,
      Supplier<Optional<LeaseFence>> leadership,
      TickerPort port,
      FirePlanner planner,
      TickLimits limits,
      MeterRegistry meters) {
    this.wheel =
        new TimingWheel(limits.tickMs(), limits.wheelSize(), limits.maxPending(), clock.millis());
    this.handOff = new ArrayBlockingQueue<>(Math.min(limits.maxPending(), 65_536));
    this.limits = limits;
    this.clock = clock;
    this.leadership = leadership;
    this.port = port;
    this.planner = planner;
    this.meters = meters;
    this.firingMeters = new FiringMeters(meters);
    this.dropped = meters.counter("ax.ticker.dropped.offers");
    this.clockHolds = meters.counter("ax.ticker.clock.unstable.holds");
    meters.gauge("ax.ticker.pending", this, t -> t.wheel.size() + t.ready.size());
    meters.gauge("ax.ticker.trigger.groups", groups, TriggerGroupIds::liveGroups);
  }

  /** The registry this loop's meters are in: the window loader's timer goes there too. */
  public MeterRegistry meters() {
    return meters;
  }

  /** What this loop holds and fires at most, and within what horizon. */
  public TickLimits limits() {
    return limits;
  }

  /** Any thread: hands an entry to the owner. False when dropped (the database keeps it). */
  public boolean offer(WheelEntry entry) {
    if (handOff.offer(entry)) {
      return true;
    }
    dropped.increment();
    fullReloadNeeded = true;
    return false;
  }

  /** Any thread: entries offered and not yet taken by the owner. */
  public int handOffSize() {
    return handOff.size();
  }

  /** Any thread: whether something was dropped or leadership changed since the last full load. */
  public boolean needsFullReload() {
    return fullReloadNeeded;
  }

  /**
   * Any thread: the next load is to be a full one, e.g. because announcements were missed (the
   * announcement reader took its partitions late). The database has every announced instance.
   */
  public void requestFullReload() {
    fullReloadNeeded = true;
  }

  /** The loader calls this when it starts a full load for the current epoch. */
  public void fullReloadStarted() {
    fullReloadNeeded = false;
  }

  /** The epoch the owner leads at, as last seen by the owner thread (-1 when not leading). */
  public long ledEpoch() {
    return newEpochSignal;
  }

  /**
   * Owner thread: one round of work.
   *
   * @return how long the owner may wait for new entries before the next step, in ms (0: go on)
   */
  public long step() {
    Optional<LeaseFence> fence = leadership.get();
    long epoch = fence.map(LeaseFence::epoch).orElse(-1L);
    if (epoch != ledEpoch) {
      int wasHeld = wheel.clear() + ready.size();
      groups.releaseAll();
      ready.clear();
      held.clear();
      handOff.clear();
      ledEpoch = epoch;
      newEpochSignal = epoch;
      fullReloadNeeded = true;
      if (wasHeld > 0) {
        log.info(
            "Leadership changed (epoch {}): dropped {} held instance(s); the database has them",
            epoch,
            wasHeld);
      }
    }
    if (fence.isEmpty()) {
      handOff.clear();
      return MAX_IDLE_WAIT_MS;
    }
    drainHandOff();
    if (!clock.isStable()) {
      clockHolds.increment();
      return MAX_IDLE_WAIT_MS;
    }
    long nowMs = clock.millis();
    // Fires what is due up to emitAhead from now: the dispatcher claims each at its due time.
    long fireUpToMs = SaturatingMillis.add(nowMs, limits.emitAheadMs());
    List<Long> batch = new ArrayList<>(Math.min(limits.maxBatch(), ready.size() + 64));
    Iterator<Long> readyFirst = ready.iterator();
    while (batch.size() < limits.maxBatch() && readyFirst.hasNext()) {
      batch.add(readyFirst.next());
      readyFirst.remove();
    }
    boolean more = false;
    if (batch.size() < limits.maxBatch()) {
      more =
          wheel.advanceTo(
              fireUpToMs,
              limits.maxBatch() - batch.size(),
              (groupId, dueAtMs, ids, count) -> {
                groups.release(groupId, count); // these entries left the wheel
                for (int i = 0; i < count; i++) {
                  batch.add(ids[i]);
                }
              });
    }
    if (batch.size() > limits.maxBatch()) {
      // The wheel hands out a whole (group, due time) at once: a burst due at one instant. Fired
      // in batches of maxBatch, so the first batch's events reach the dispatchers while the next
      // is marked, instead of all after one long transaction. The ready list was empty (else the
      // wheel was not asked), so the rest is fired next, before anything due later.
      List<Long> rest = batch.subList(limits.maxBatch(), batch.size());
      ready.addAll(rest);
      rest.clear();
    }
    if (batch.isEmpty()) {
      long next = wheel.nextExpiryMs();
      return next == Long.MAX_VALUE
          ? MAX_IDLE_WAIT_MS
          : Math.max(1, Math.min(next - fireUpToMs, MAX_IDLE_WAIT_MS));
    }
    boolean ok = fire(batch, nowMs, fence.get());
    if (!ok) {
      LinkedHashSet<Long> retry = new LinkedHashSet<>(batch);
      retry.addAll(ready);
      ready.clear();
      ready.addAll(retry);
      return RETRY_WAIT_MS;
    }
    return more || !ready.isEmpty() ? 0 : 1;
  }

  /** Owner thread: waits up to {@code waitMs} for an offer (which ends the wait early). */
  void await(long waitMs) throws InterruptedException {
    if (waitMs <= 0) {
      return;
    }
    WheelEntry first = handOff.poll(waitMs, TimeUnit.MILLISECONDS);
    if (first != null) {
      add(first);
    }
  }

  private void drainHandOff() {
    WheelEntry entry;
    while ((entry = handOff.poll()) != null) {
      add(entry);
    }
  }

  /**
   * Puts an entry in the wheel, counting it in its trigger group while it stays there; an entry not
   * added (already held, already due, or the wheel full) is given back at once.
   */
  /** A row looked at again at {@code atMs}; like {@link #add}, never lost to a full wheel. */
  private void recheck(long seq, long atMs) {
    switch (wheel.add(seq, TriggerGroupIds.NO_GROUP, atMs)) {
      case ALREADY_DUE -> ready.add(seq);
      case FULL -> {
        dropped.increment();
        fullReloadNeeded = true;
      }
      default -> {}
    }
  }

  private void add(WheelEntry entry) {
    int groupId = groups.acquire(entry.triggerGroup());
    AddResult result = wheel.add(entry.seq(), groupId, entry.dueAtMs());
    if (result != AddResult.ADDED) {
      groups.release(groupId, 1);
    }
    switch (result) {
      case ALREADY_DUE -> ready.add(entry.seq());
      case FULL -> {
        dropped.increment();
        fullReloadNeeded = true;
      }
      default -> {}
    }
  }

  private boolean fire(List<Long> seqs, long nowMs, LeaseFence fence) {
    try {
      long t0 = System.nanoTime();
      List<DueInstance> rows = port.scheduledBySeq(seqs);
      long t1 = System.nanoTime();
      held.forgetGone(seqs, rows);
      if (rows.isEmpty()) {
        return true; // fired elsewhere, cancelled, or already done: nothing to do
      }
      Map<String, StoredTask> tasks = port.tasksOf(rows);
      Set<String> watched = FirePlanner.nonConcurrent(rows, tasks);
      Map<String, TaskOverlap> live = watched.isEmpty() ? Map.of() : port.overlapOf(watched, nowMs);
      long t2 = System.nanoTime();
      FirePlan plan = planner.plan(rows, tasks, live, held.seqs(), nowMs);
      long markStart = System.nanoTime();
      FireResult result = port.fire(plan, tasks, fence, nowMs);
      long t3 = System.nanoTime();
      firingMeters.marked(t3 - markStart);
      try {
        port.emitDue(result.dispatched(), fence.epoch(), nowMs, FirePlanner.groupsOf(tasks));
      } catch (RuntimeException e) {
        // Committed but not sent: the reaper re-emits rows left DISPATCHED and unclaimed.
        log.error(
            "Due events for {} instance(s) not sent; the reaper will re-emit them",
            result.dispatched().size(),
            e);
      }
      if (log.isDebugEnabled()) {
        log.debug(
            "Fired {} instance(s), oldest {} ms late: read {} ms, tasks {} ms, mark {} ms, emit {}"
                + " ms",
            rows.size(),
            nowMs - rows.stream().mapToLong(DueInstance::dueAtMs).min().orElse(nowMs),
            (t1 - t0) / 1_000_000,
            (t2 - t1) / 1_000_000,
            (t3 - t2) / 1_000_000,
            (System.nanoTime() - t3) / 1_000_000);
      }
      settle(plan, result, tasks, nowMs);
      return true;
    } catch (StoreException e) {
      log.warn(
          "Ticker could not fire {} instance(s), retrying in {} ms: {}",
          seqs.size(),
          RETRY_WAIT_MS,
          e.getMessage());
      return false;
    }
  }

  /** Counts, holds successors, reports ended chains and re-checks held rows of one firing. */
  private void settle(FirePlan plan, FireResult result, Map<String, StoredTask> tasks, long nowMs) {
    firingMeters.settled(plan, result, nowMs);
    holdSuccessors(plan, result, tasks, nowMs);
    // Once per task: its last row moved, so nothing of it is planned again.
    plan.chainsEnded().forEach(TickLoop::logChainEnd);
    port.firedWith(
        Stream.concat(result.dispatched().stream(), result.skipped().stream())
            .map(instance -> tasks.get(instance.taskId()))
            .filter(Objects::nonNull)
            .toList());
    held.settled(result);
    // Looked at again a second from now, past the lead the wheel hands entries out with (so a
    // recheck is never handed out at once), and at their due times for the rows not decided yet.
    long recheckAtMs = SaturatingMillis.add(nowMs, DELAY_RECHECK_MS + limits.emitAheadMs());
    plan.delay().forEach(seq -> recheck(seq, recheckAtMs));
    result.held().forEach(row -> recheck(row.seq(), recheckAtMs));
    plan.notYet()
        .forEach((seq, dueMs) -> recheck(seq, SaturatingMillis.add(dueMs, limits.emitAheadMs())));
  }

  private static void logChainEnd(String instanceId, String taskId) {
    log.warn(
        "Task {} has no fire time after {}: its chain ends there (a cron whose years are over,"
            + " or a FIXED_RATE slot beyond the year 9999)",
        taskId,
        instanceId);
  }

  private void holdSuccessors(
      FirePlan plan, FireResult result, Map<String, StoredTask> tasks, long nowMs) {
    if (result.created().isEmpty()) {
      return;
    }
    for (List<NewInstance> successors : plan.successors().values()) {
      for (NewInstance successor : successors) {
        Long seq = result.created().get(successor.instanceId());
        if (seq == null || successor.dueAtMs() >= SaturatingMillis.add(nowMs, limits.horizonMs())) {
          continue; // not created now (existed already), or beyond the horizon: the loader brings
          // it
        }
        StoredTask task = tasks.get(successor.taskId());
        String group = task == null ? "" : TriggerGroups.keyOf(task.spec().trigger());
        add(new WheelEntry(seq, successor.dueAtMs(), group));
      }
    }
  }

  /** Owner thread, for tests and metrics. */
  int held() {
    return wheel.size() + ready.size();
  }

  /** Trigger groups with an entry in the wheel: for tests. */
  int triggerGroups() {
    return groups.liveGroups();
  }
}
