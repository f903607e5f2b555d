package dev.ax.retry;

import dev.ax.common.store.DueInstance;
import dev.ax.common.store.StoreException;
import dev.ax.common.time.Clock;
import dev.ax.common.trace.TraceLog;
import dev.ax.common.wheel.AddResult;
import dev.ax.common.wheel.TimingWheel;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retry stage's heart: holds each pending retry in a {@link TimingWheel} until its backoff is
 * over, then dispatches it through the {@link RetryPort} as the {@link RetryPlanner} allows.
 *
 * <p><b>Threading.</b> One owner thread ({@link RetryFiringThread}) calls {@link #await} and {@link
 * #step}, and alone touches the wheel, the ready set and the planner. Other threads (the consumer,
 * the scan) hand retries over with {@link #offer} through a bounded queue: a retry that does not
 * fit is dropped, and the next scan brings it back from the database. The scheduler thread calls
 * {@link #countInFlight}; the count and the "retries wait" flag are the only state shared, each in
 * one atomic or volatile field.
 *
 * <p><b>Each {@link #step()}:</b> move handed-over retries into the wheel (one already due goes to
 * the ready set), collect what the wheel hands out up to now, and, while the {@code retries} switch
 * is on, dispatch what the planner lets go, oldest ready first. If the database fails the batch
 * goes back to the ready set and the step asks its owner to wait {@link #RETRY_WAIT_MS}.
 *
 * <p>Time comes only from the injected {@link Clock}.
 */
final class RetryLoop {

  private static final Logger log = LoggerFactory.getLogger(RetryLoop.class);

  /** How long the owner waits after the database failed a dispatch. */
  static final long RETRY_WAIT_MS = 1000;

  private static final int HANDOFF_CAPACITY = 100_000;

  private final Clock clock;
  private final RetryPort port;
  private final RetryPlanner planner;
  private final TimingWheel wheel;
  private final ArrayBlockingQueue<HeldRetry> handoff = new ArrayBlockingQueue<>(HANDOFF_CAPACITY);
  private final LinkedHashSet<Long> ready = new LinkedHashSet<>();
  private final AtomicLong inFlight = new AtomicLong();
  private final AtomicLong heldBack = new AtomicLong();
  private final Counter dispatched;

  /**
   * Whether retries wait in the wheel; set by the owner. The in-flight count reads every DISPATCHED
   * and RUNNING row, so it runs only while there are retries it could hold back.
   */
  private volatile boolean retriesWaiting;

  /**
   * @param maxPending the most retries the wheel holds
   */
  RetryLoop(
      Clock clock, RetryPort port, RetryPlanner planner, int maxPending, MeterRegistry meters) {
    this.clock = clock;
    this.port = port;
    this.planner = planner;
    this.wheel = new TimingWheel(maxPending, clock.millis());
    this.dispatched = meters.counter("ax.retry.dispatched");
    meters.gauge("ax.retry.held.back.by.quota", heldBack);
    meters.gauge("ax.retry.in.flight", inFlight);
  }

  /** Any thread: hands a retry to the owner. False when dropped (the next scan brings it back). */
  boolean offer(HeldRetry retry) {
    return handoff.offer(retry);
  }

  /** Owner thread: waits up to {@code waitMs} for an offer (which ends the wait early). */
  void await(long waitMs) throws InterruptedException {
    HeldRetry first = handoff.poll(waitMs, TimeUnit.MILLISECONDS);
    if (first != null) {
      add(first);
    }
  }

  /**
   * Owner thread: one round of work.
   *
   * @return how long the owner is to wait before the next round, in ms (0: go on)
   */
  long step() {
    HeldRetry next;
    while ((next = handoff.poll()) != null) {
      add(next);
    }
    long nowMs = clock.millis();
    wheel.advanceTo(
        nowMs,
        (group, dueAtMs, seqs, count) -> {
          for (int i = 0; i < count; i++) {
            ready.add(seqs[i]);
          }
        });
    boolean waiting = !ready.isEmpty() || wheel.size() > 0;
    if (waiting && !retriesWaiting) {
      retriesWaiting = true;
      countInFlight(); // fresh before the first dispatch after an idle spell
    }
    retriesWaiting = waiting;
    if (ready.isEmpty() || !port.retriesEnabled()) {
      return 0;
    }
    return dispatchReady(nowMs) ? 0 : RETRY_WAIT_MS;
  }

  private void add(HeldRetry retry) {
    if (wheel.add(retry.seq(), 0, retry.atMs()) == AddResult.ALREADY_DUE) {
      ready.add(retry.seq());
    }
  }

  /** Dispatches what the planner lets go; false when the database failed (the batch waits). */
  private boolean dispatchReady(long nowMs) {
    DispatchPlan plan = planner.plan(ready, inFlight.get(), nowMs);
    heldBack.set(plan.heldBack());
    if (plan.batch().isEmpty()) {
      return true;
    }
    plan.batch().forEach(ready::remove);
    List<DueInstance> moved;
    try {
      moved = port.dispatch(plan.batch(), nowMs);
    } catch (StoreException e) {
      log.warn(
          "Could not dispatch {} retr(ies), retrying in {} ms: {}",
          plan.batch().size(),
          RETRY_WAIT_MS,
          e.getMessage());
      ready.addAll(plan.batch());
      return false;
    }
    inFlight.addAndGet(moved.size());
    dispatched.increment(moved.size());
    for (DueInstance instance : moved) {
      port.emitDue(instance, nowMs);
    }
    if (!moved.isEmpty()) {
      log.debug(
          "Dispatched {} retr(ies): {}",
          moved.size(),
          TraceLog.firstIds(moved, DueInstance::instanceId, DueInstance::traceId, 5));
    }
    return true;
  }

  /**
   * Any thread: reads the retried attempts in flight again, while retries wait (otherwise nothing
   * is to be bounded and the count stays as last read).
   */
  void countInFlight() {
    if (!retriesWaiting) {
      return;
    }
    try {
      inFlight.set(port.countRetriesInFlight());
    } catch (RuntimeException e) {
      log.warn("Could not count retries in flight: {}", e.toString());
    }
  }

  /** Retries held in the wheel or ready: for tests. */
  int held() {
    return wheel.size() + ready.size();
  }
}
