package dev.ax.ticker;

import dev.ax.common.model.TriggerGroups;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.InstanceStore.FireResult;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.StoreException;
import dev.ax.common.store.StoredTask;
import dev.ax.common.time.Clock;
import dev.ax.common.wheel.AddResult;
import dev.ax.common.wheel.TimingWheel;
import dev.ax.ticker.Firing.Marked;
import dev.ax.ticker.fire.FirePlan;
import dev.ax.ticker.fire.FirePlanner;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ticker's heart: one owning thread drives a {@link TimingWheel} of instance keys and fires
 * what falls due, in batches, with up to {@code maxInFlight} batches' transactions in flight at
 * once.
 *
 * <p><b>Threading.</b> Only the owner thread touches the wheel, the ready list and the firing
 * state; other threads (the window loader, the announcement consumer) hand entries over through a
 * bounded queue with {@link #offer}, so nothing here needs a lock. An offer that finds the queue
 * full, or an entry the wheel cannot hold, is dropped and flags {@link #needsFullReload()}: the
 * instance is still SCHEDULED in the database and the next full load brings it back. The marking
 * threads (the {@code marker} executor) run only a batch's fenced transaction and its due events,
 * and report back through the batch's {@link Firing#done()} future; the owner applies what they
 * report, in the order the batches were planned.
 *
 * <p><b>Each {@link #step()}:</b> apply the batches whose transactions have finished. If this node
 * does not lead, hold nothing; if it leads at a new epoch, drop what it held (the loader rebuilds
 * it from the database). Move handed-over entries into the wheel; entries already due go to a ready
 * list, oldest first. If the clock is unstable, or {@code maxInFlight} batches are in flight, fire
 * nothing. Otherwise take the ready list and advance the wheel to now, at most {@code maxBatch}
 * instances, and plan them on the owner thread: read the rows still SCHEDULED, plan (misfires,
 * concurrency, successors; see {@link FirePlanner}), then hand the plan to a marking thread, which
 * applies it in one fenced transaction and emits the due events. When the transaction is done the
 * owner puts the successors due within the horizon straight into the wheel. If the database fails
 * the batch goes back to the ready list and firing pauses for {@link #RETRY_WAIT_MS}.
 *
 * <p><b>Overlapping batches.</b> Each batch's keys are disjoint from those in flight. A batch's due
 * events are emitted only after the events of every batch planned before it, so overdue instances
 * still go out oldest first. A task that must not run concurrently is held by at most one batch in
 * flight: a later batch defers its rows until that batch is applied, and then plans them against
 * what the database says is running.
 *
 * <p>Time comes only from the injected {@link Clock}; the wheel never moves back, so a clock that
 * holds still or steps back fires nothing early.
 */
final class TickLoop {

  private static final Logger log = LoggerFactory.getLogger(TickLoop.class);
  static final long MAX_IDLE_WAIT_MS = 50;
  static final long RETRY_WAIT_MS = 500;
  static final long DELAY_RECHECK_MS = 1000;

  private final Clock clock;
  private final Supplier<Optional<LeaseFence>> leadership;
  private final TickerPort port;
  private final FirePlanner planner;
  private final Executor marker;
  private final int maxInFlight;
  private final TriggerGroupIds groups = new TriggerGroupIds();
  private final BlockingQueue<WheelEntry> handOff;
  private final Semaphore wake = new Semaphore(0);
  private final TimingWheel wheel;
  private final long horizonMs;
  private final int maxBatch;
  private final Counter fired;
  private final Counter skipped;
  private final Counter dropped;
  private final Counter clockHolds;
  private final DistributionSummary lateness;

  private final LinkedHashSet<Long> ready = new LinkedHashSet<>();
  private final ArrayDeque<Firing> inFlight = new ArrayDeque<>();
  private final Set<Long> seqsInFlight = new HashSet<>();
  private final Set<String> nonConcurrentInFlight = new HashSet<>();
  private CompletableFuture<Void> lastEmitted = CompletableFuture.completedFuture(null);
  private long pausedUntilMs = Long.MIN_VALUE;
  private long ledEpoch = -1;
  private volatile boolean fullReloadNeeded = true;
  private volatile long newEpochSignal = -1;

  /**
   * @param marker runs the batches' transactions and due events; {@code Runnable::run} runs them on
   *     the owner thread, one batch at a time
   * @param maxInFlight most batches whose transactions run at once
   */
  TickLoop(
      Clock clock,
      Supplier<Optional<LeaseFence>> leadership,
      TickerPort port,
      FirePlanner planner,
      Executor marker,
      int maxInFlight,
      long tickMs,
      int wheelSize,
      int maxPending,
      int maxBatch,
      long horizonMs,
      MeterRegistry meters) {
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("maxInFlight must be at least 1, was " + maxInFlight);
    }
    this.clock = clock;
    this.leadership = leadership;
    this.port = port;
    this.planner = planner;
    this.marker = marker;
    this.maxInFlight = maxInFlight;
    this.wheel = new TimingWheel(tickMs, wheelSize, maxPending, clock.millis());
    this.handOff = new ArrayBlockingQueue<>(Math.min(maxPending, 65_536));
    this.horizonMs = horizonMs;
    this.maxBatch = maxBatch;
    this.fired = meters.counter("ax.ticker.fired");
    this.skipped = meters.counter("ax.ticker.skipped");
    this.dropped = meters.counter("ax.ticker.dropped.offers");
    this.clockHolds = meters.counter("ax.ticker.clock.unstable.holds");
    this.lateness =
        DistributionSummary.builder("ax.ticker.emit.lateness.ms")
            .description("emit time minus due time")
            .publishPercentiles(0.5, 0.99)
            .register(meters);
    meters.gauge("ax.ticker.pending", this, t -> t.wheel.size() + t.ready.size());
  }

  /** Any thread: hands an entry to the owner. False when dropped (the database keeps it). */
  boolean offer(WheelEntry entry) {
    if (handOff.offer(entry)) {
      wake.release();
      return true;
    }
    dropped.increment();
    fullReloadNeeded = true;
    return false;
  }

  /** Any thread: entries offered and not yet taken by the owner. */
  int handOffSize() {
    return handOff.size();
  }

  /** Any thread: whether something was dropped or leadership changed since the last full load. */
  boolean needsFullReload() {
    return fullReloadNeeded;
  }

  /** The loader calls this when it starts a full load for the current epoch. */
  void fullReloadStarted() {
    fullReloadNeeded = false;
  }

  /** The epoch the owner leads at, as last seen by the owner thread (-1 when not leading). */
  long ledEpoch() {
    return newEpochSignal;
  }

  /**
   * Owner thread: one round of work.
   *
   * @return how long the owner may wait for new entries before the next step, in ms (0: go on)
   */
  long step() {
    applyDone();
    Optional<LeaseFence> fence = leadership.get();
    long epoch = fence.map(LeaseFence::epoch).orElse(-1L);
    if (epoch != ledEpoch) {
      int held = wheel.clear() + ready.size();
      ready.clear();
      handOff.clear();
      ledEpoch = epoch;
      newEpochSignal = epoch;
      fullReloadNeeded = true;
      pausedUntilMs = Long.MIN_VALUE;
      if (held > 0) {
        log.info(
            "Leadership changed (epoch {}): dropped {} held instance(s); the database has them",
            epoch,
            held);
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
    if (nowMs < pausedUntilMs) {
      return Math.min(pausedUntilMs - nowMs, RETRY_WAIT_MS);
    }
    if (inFlight.size() >= maxInFlight) {
      return MAX_IDLE_WAIT_MS; // a finished batch wakes the owner
    }
    List<Long> batch = new ArrayList<>(Math.min(maxBatch, ready.size() + 64));
    Iterator<Long> readyFirst = ready.iterator();
    while (batch.size() < maxBatch && readyFirst.hasNext()) {
      Long seq = readyFirst.next();
      readyFirst.remove();
      if (!seqsInFlight.contains(seq)) {
        batch.add(seq);
      }
    }
    boolean more = false;
    if (batch.size() < maxBatch) {
      more =
          wheel.advanceTo(
              nowMs,
              maxBatch - batch.size(),
              (groupId, dueAtMs, ids, count) -> {
                for (int i = 0; i < count; i++) {
                  if (!seqsInFlight.contains(ids[i])) {
                    batch.add(ids[i]);
                  }
                }
              });
    }
    if (batch.isEmpty()) {
      long next = wheel.nextExpiryMs();
      return next == Long.MAX_VALUE
          ? MAX_IDLE_WAIT_MS
          : Math.max(1, Math.min(next - nowMs, MAX_IDLE_WAIT_MS));
    }
    if (!startFiring(batch, nowMs, fence.get())) {
      requeue(batch);
      pausedUntilMs = nowMs + RETRY_WAIT_MS;
      return RETRY_WAIT_MS;
    }
    applyDone();
    if (pausedUntilMs > nowMs) {
      return RETRY_WAIT_MS;
    }
    return more || !ready.isEmpty() ? 0 : 1;
  }

  /** Owner thread: waits up to {@code waitMs} for an offer or a finished batch. */
  void await(long waitMs) throws InterruptedException {
    if (waitMs <= 0) {
      return;
    }
    wake.tryAcquire(waitMs, TimeUnit.MILLISECONDS);
    wake.drainPermits();
  }

  /** Owner thread: batches handed to the marking threads and not yet applied. */
  int inFlight() {
    return inFlight.size();
  }

  private void drainHandOff() {
    WheelEntry entry;
    while ((entry = handOff.poll()) != null) {
      add(entry);
    }
  }

  private void add(WheelEntry entry) {
    AddResult result = wheel.add(entry.seq(), groups.idOf(entry.triggerGroup()), entry.dueAtMs());
    switch (result) {
      case ALREADY_DUE -> ready.add(entry.seq());
      case FULL -> {
        dropped.increment();
        fullReloadNeeded = true;
      }
      default -> {}
    }
  }

  /** Puts {@code seqs} at the front of the ready list, in their order. */
  private void requeue(List<Long> seqs) {
    if (seqs.isEmpty()) {
      return;
    }
    LinkedHashSet<Long> retry = new LinkedHashSet<>(seqs);
    retry.addAll(ready);
    ready.clear();
    ready.addAll(retry);
  }

  /**
   * Reads and plans {@code seqs} on the owner thread and hands the plan to a marking thread.
   *
   * @return false if the database could not be read (nothing was handed over)
   */
  private boolean startFiring(List<Long> seqs, long nowMs, LeaseFence fence) {
    long t0 = System.nanoTime();
    List<DueInstance> firable = new ArrayList<>(seqs.size());
    List<Long> deferred = new ArrayList<>();
    Set<String> nonConcurrent = new HashSet<>();
    Map<String, StoredTask> tasks;
    FirePlan plan;
    try {
      List<DueInstance> rows = port.scheduledBySeq(seqs);
      if (rows.isEmpty()) {
        return true; // fired elsewhere, cancelled, or already done: nothing to do
      }
      tasks = port.tasksOf(rows);
      for (DueInstance row : rows) {
        StoredTask task = tasks.get(row.taskId());
        if (task != null && !task.spec().concurrent()) {
          if (nonConcurrentInFlight.contains(row.taskId())) {
            deferred.add(row.seq());
            continue;
          }
          nonConcurrent.add(row.taskId());
        }
        firable.add(row);
      }
      if (firable.isEmpty()) {
        inFlight.addLast(Firing.deferredOnly(fence.epoch(), nowMs, deferred));
        return true;
      }
      Set<String> running = nonConcurrent.isEmpty() ? Set.of() : port.inFlight(nonConcurrent);
      plan = planner.plan(firable, tasks, running, nowMs);
    } catch (StoreException e) {
      log.warn(
          "Ticker could not read {} due instance(s), retrying in {} ms: {}",
          seqs.size(),
          RETRY_WAIT_MS,
          e.getMessage());
      return false;
    }
    long readMs = (System.nanoTime() - t0) / 1_000_000;
    Map<String, String> groupByTask = new HashMap<>();
    tasks.forEach((id, task) -> groupByTask.put(id, task.spec().group()));
    List<Long> marked = new ArrayList<>(firable.size());
    firable.forEach(row -> marked.add(row.seq()));
    CompletableFuture<FireResult> committed;
    try {
      committed = CompletableFuture.supplyAsync(() -> port.fire(plan, fence, nowMs), marker);
    } catch (RejectedExecutionException e) {
      log.warn("Ticker's marking threads are shut down; not firing {} instance(s)", seqs.size());
      return false;
    }
    long t1 = System.nanoTime();
    CompletableFuture<Marked> done =
        committed.thenCombine(
            lastEmitted,
            (result, previousEmitted) -> {
              long t2 = System.nanoTime();
              emit(result, fence.epoch(), nowMs, groupByTask);
              return new Marked(
                  result, (t2 - t1) / 1_000_000, (System.nanoTime() - t2) / 1_000_000);
            });
    lastEmitted = done.handle((ignored, error) -> null);
    done.whenComplete((ignored, error) -> wake.release());
    seqsInFlight.addAll(marked);
    nonConcurrentInFlight.addAll(nonConcurrent);
    inFlight.addLast(
        new Firing(
            fence.epoch(), nowMs, marked, deferred, nonConcurrent, plan, tasks, readMs, done));
    return true;
  }

  private void emit(FireResult result, long epoch, long nowMs, Map<String, String> groupByTask) {
    try {
      port.emitDue(result.dispatched(), epoch, nowMs, groupByTask);
    } catch (RuntimeException e) {
      // Committed but not sent: the reaper re-emits rows left DISPATCHED and unclaimed.
      log.error(
          "Due events for {} instance(s) not sent; the reaper will re-emit them",
          result.dispatched().size(),
          e);
    }
  }

  /** Owner thread: applies the finished batches at the head of the queue, in planning order. */
  private void applyDone() {
    List<Long> back = new ArrayList<>();
    while (!inFlight.isEmpty() && inFlight.peekFirst().done().isDone()) {
      Firing firing = inFlight.pollFirst();
      seqsInFlight.removeAll(firing.seqs());
      nonConcurrentInFlight.removeAll(firing.nonConcurrent());
      boolean current = firing.epoch() == ledEpoch;
      if (firing.plan() != null) {
        try {
          Marked marked = firing.done().join();
          if (current) {
            applyMarked(firing, marked);
          }
        } catch (CompletionException e) {
          Throwable cause = e.getCause() == null ? e : e.getCause();
          if (cause instanceof StoreException) {
            log.warn(
                "Ticker could not fire {} instance(s), retrying in {} ms: {}",
                firing.seqs().size(),
                RETRY_WAIT_MS,
                cause.getMessage());
          } else {
            log.error("Ticker could not fire {} instance(s)", firing.seqs().size(), cause);
          }
          if (current) {
            pausedUntilMs = clock.millis() + RETRY_WAIT_MS;
            back.addAll(firing.seqs());
          }
        }
      }
      if (current) {
        back.addAll(firing.deferred());
      }
    }
    requeue(back);
  }

  private void applyMarked(Firing firing, Marked marked) {
    FireResult result = marked.result();
    long nowMs = firing.nowMs();
    if (log.isDebugEnabled()) {
      log.debug(
          "Fired {} instance(s), oldest {} ms late: read {} ms, mark {} ms, emit {} ms, {} more"
              + " batch(es) in flight",
          firing.seqs().size(),
          nowMs
              - firing.plan().rowsBySeq().values().stream()
                  .mapToLong(DueInstance::dueAtMs)
                  .min()
                  .orElse(nowMs),
          firing.readMs(),
          marked.markMs(),
          marked.emitMs(),
          inFlight.size());
    }
    fired.increment(result.dispatched().size());
    skipped.increment(result.skipped().size());
    for (DueInstance instance : result.dispatched()) {
      lateness.record(nowMs - instance.dueAtMs());
    }
    holdSuccessors(firing.plan(), result, firing.tasks(), nowMs);
    List<StoredTask> done = new ArrayList<>();
    for (List<DueInstance> settled : List.of(result.dispatched(), result.skipped())) {
      for (DueInstance instance : settled) {
        StoredTask task = firing.tasks().get(instance.taskId());
        if (task != null) {
          done.add(task);
        }
      }
    }
    port.firedWith(done);
    for (Long seq : firing.plan().delay()) {
      wheel.add(seq, 0, nowMs + DELAY_RECHECK_MS);
    }
  }

  private void holdSuccessors(
      FirePlan plan, FireResult result, Map<String, StoredTask> tasks, long nowMs) {
    if (result.created().isEmpty()) {
      return;
    }
    for (List<NewInstance> successors : plan.successors().values()) {
      for (NewInstance successor : successors) {
        Long seq = result.created().get(successor.instanceId());
        if (seq == null || successor.dueAtMs() >= nowMs + horizonMs) {
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
}
