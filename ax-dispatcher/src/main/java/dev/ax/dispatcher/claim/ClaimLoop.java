package dev.ax.dispatcher.claim;

import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.thread.DaemonThreads;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.dispatcher.store.ClaimedInstance;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that claims: it alone owns the held events ({@link HeldEvents}), the shedding
 * budget ({@link HoldBudget}) and the late claims ({@link LateClaims}), so none of them needs a
 * lock and no consumer thread ever waits on a database round trip.
 *
 * <p><b>Threading.</b> Other threads only hand work over, through the loop's {@link #inbox()}: the
 * intake {@linkplain ClaimInbox#offer offers} each polled batch and {@linkplain
 * ClaimInbox#requestHandBack asks for a hand-back} when partitions are revoked; both go through one
 * FIFO inbox, so a hand-back covers every event offered before it. The inbox is bounded by the
 * intake's back-pressure, which reads {@link ClaimInbox#backlog()}: the intake pauses fetching
 * while a poll's worth is handed over or held, so at most one more poll's worth waits here. {@link
 * #close()} may be called from any thread.
 *
 * <p><b>Each pass</b> (on every hand-over and every {@value #DRAIN_INTERVAL_MS} ms): move the inbox
 * into the held events; take from each pool's held events, oldest due first, as many as the pool
 * has room for; if a poll's worth is still held, shed the backlog of stalled groups; publish the
 * backlog (the intake decides on it while this thread is in the claim's round trip); claim what was
 * taken in one conditional UPDATE and start the runs won. An event that arrives before its due time
 * (the ticker emits ahead, {@code AX_TICKER_EMIT_AHEAD}), or whose claim lost because its instance
 * is not due yet on this node's clock, waits in {@link LateClaims} and is claimed at its due time,
 * never before. If the claim fails (the database is away), its events go back to the held events
 * and claims pause for {@link #CLAIM_RETRY_BACKOFF}. At stop, what is held and handed over goes
 * back to its topic.
 *
 * <p><b>A claim under way when the stop arrives</b> still starts what it won: the stage shuts its
 * pools only after {@link #close()} has returned, so those attempts run within the grace period
 * like any other, and none is left RUNNING for the reaper (which would start it again, one attempt
 * later, once its lease expired). No new claim begins once stopping. Only a claim that outlives the
 * stop wait ({@value #STOP_WAIT_MS} ms) starts nothing: its rows wait for their lease as after a
 * crash. The {@link StartGate}, which {@link #close()} closes when it gives up on the loop, makes
 * that cut clean: no run starts after {@link #close()} has returned.
 */
public final class ClaimLoop implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClaimLoop.class);

  /** How often held events are offered to their pools again when nothing is handed over. */
  static final long DRAIN_INTERVAL_MS = 20;

  /** The pause in claiming after a claim failed. */
  static final Duration CLAIM_RETRY_BACKOFF = Duration.ofSeconds(1);

  /** How long {@link #close()} waits for the loop to hand its events back, by default. */
  static final long STOP_WAIT_MS = 10_000;

  private final Clock clock;
  private final DispatcherPort port;
  private final HoldBudget budget;
  private final int pollSize;
  private final HeldEvents held = new HeldEvents();
  private final LateClaims late = new LateClaims();
  private final ClaimInbox inbox = new ClaimInbox();
  private final Counter claimed;
  private final Timer claimTime;
  private final Counter conflicts;
  private final StalledGroups shedding;
  private final HeldEventsMeter heldMeter;
  private final Thread thread = DaemonThreads.thread("ax-dispatcher-claim", this::run);

  private volatile boolean stopping;
  private final StartGate gate;
  private final Duration stopWait;

  private final AtomicBoolean closed = new AtomicBoolean();

  /** Loop thread only: no claim before this time after a failed one. */
  private long claimsPausedUntilMs = Long.MIN_VALUE;

  /**
   * @param pollSize the held events at which the intake pauses fetching and stalled groups shed
   */
  public ClaimLoop(
      Clock clock, DispatcherPort port, HoldBudget budget, int pollSize, MeterRegistry meters) {
    this(clock, port, budget, pollSize, meters, Duration.ofMillis(STOP_WAIT_MS));
  }

  /**
   * @param stopWait how long {@link #close()} waits for the loop before it gives up on it
   */
  ClaimLoop(
      Clock clock,
      DispatcherPort port,
      HoldBudget budget,
      int pollSize,
      MeterRegistry meters,
      Duration stopWait) {
    this.stopWait = stopWait;
    if (pollSize < 1) {
      throw new IllegalArgumentException("pollSize must be positive: " + pollSize);
    }
    this.clock = clock;
    this.port = port;
    this.gate = new StartGate(port);
    this.budget = budget;
    this.pollSize = pollSize;
    this.claimed = meters.counter("ax.dispatcher.claimed");
    this.claimTime =
        Timer.builder("ax.dispatcher.claim")
            .description("the conditional UPDATE transaction that claims held instances")
            .register(meters);
    this.conflicts = meters.counter("ax.dispatcher.claim.conflicts");
    this.shedding = new StalledGroups(budget, meters);
    this.heldMeter = new HeldEventsMeter(meters);
  }

  public void start() {
    thread.start();
  }

  /**
   * Where other threads hand work to this loop (polled batches, hand-back requests) and read its
   * backlog: all the loop shares with them.
   */
  public ClaimInbox inbox() {
    return inbox;
  }

  private void run() {
    try {
      while (!stopping) {
        ClaimInbox.Entry first = inbox.poll(waitMs());
        if (first != null) {
          accept(first);
        }
        if (stopping) {
          break;
        }
        stepQuietly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Error e) {
      log.error(
          "The claim thread died; this dispatcher claims nothing more until it is restarted", e);
      throw e;
    } finally {
      finish();
    }
  }

  /**
   * How long the loop thread waits for a hand-over before its next pass. Loop thread (or a test).
   */
  long waitMs() {
    long nowMs = clock.millis();
    // While claims are paused after a failed one, late claims wait too (else this would spin).
    long untilNextMs =
        nowMs < claimsPausedUntilMs
            ? claimsPausedUntilMs - nowMs
            : SaturatingMillis.subtract(late.nextDueMs(), nowMs);
    return Math.max(1, Math.min(DRAIN_INTERVAL_MS, untilNextMs));
  }

  private void stepQuietly() {
    try {
      step();
    } catch (RuntimeException e) {
      // A pass that throws must not end the only thread that claims.
      log.warn("Claim pass failed, retrying shortly: {}", e.toString());
    }
  }

  /** One pass: takes the inbox, claims what the pools have room for. Loop thread (or a test). */
  void step() {
    ClaimInbox.Entry next;
    while ((next = inbox.poll()) != null) {
      accept(next);
    }
    long nowMs = clock.millis();
    Map<String, PooledEvent> taken = nowMs < claimsPausedUntilMs ? Map.of() : takeForPools(nowMs);
    if (held.size() >= pollSize) {
      shedding.shed(held, nowMs);
    }
    inbox.publish(held.size());
    heldMeter.publish(held, nowMs);
    if (stopping) {
      // The stop arrived during this pass: no new claim; these go back with the rest.
      taken.values().forEach(p -> held.add(p.pool(), p.event()));
    } else if (!taken.isEmpty()) {
      claimAndStart(taken);
    }
    if (nowMs >= claimsPausedUntilMs && !stopping) {
      claimLate(clock.millis());
    }
  }

  /** Takes one inbox entry; a {@link ClaimInbox.Stop} has nothing to take (the flag stops). */
  private void accept(ClaimInbox.Entry entry) {
    if (entry instanceof ClaimInbox.HandBackRequest request) {
      handBackHeld(request.why());
    } else if (entry instanceof ClaimInbox.Batch batch) {
      for (PooledEvent pooled : batch.events()) {
        held.add(pooled.pool(), pooled.event());
        heldMeter.seen(pooled.pool());
      }
      inbox.moved(batch.events().size());
    }
  }

  /**
   * Takes, pool by pool, as many held events as each pool has room for, oldest due first, one per
   * instance; the rest stay held (unclaimed, so another dispatcher or the reaper can still get
   * them) until their pool has room.
   */
  private Map<String, PooledEvent> takeForPools(long nowMs) {
    Map<String, PooledEvent> taken = new LinkedHashMap<>();
    Set<String> waitingTaskIds = new HashSet<>();
    for (String pool : held.groups()) {
      int room = port.room(pool);
      List<TaskDueEvent> events = held.take(pool, room);
      for (TaskDueEvent event : events) {
        PooledEvent pooled = new PooledEvent(pool, event);
        // Emitted ahead of its due time (AX_TICKER_EMIT_AHEAD): claimed at its due time, not now.
        if (event.dueAtMs() > nowMs && late.add(pooled, nowMs)) {
          waitingTaskIds.add(event.taskId());
        } else {
          taken.putIfAbsent(event.instanceId(), pooled);
        }
      }
      budget.drained(pool, events.size(), events.size() >= room && held.size(pool) > 0, nowMs);
    }
    if (!waitingTaskIds.isEmpty()) {
      // Their specs are read while they wait, so the start after their claim does not read them.
      port.prefetchSpecs(waitingTaskIds);
    }
    return taken;
  }

  private void claimAndStart(Map<String, PooledEvent> events) {
    Future<?> prefetch = port.prefetchSpecs(PooledEvent.taskIds(events.values()));
    long nowMs = clock.millis();
    long claimStartNanos = System.nanoTime();
    List<ClaimedInstance> won;
    try {
      won = port.claim(events.keySet(), nowMs);
    } catch (RuntimeException e) {
      // Nothing was claimed: the events wait again, and the database gets a moment to come back.
      events.values().forEach(p -> held.add(p.pool(), p.event()));
      inbox.held(held.size());
      claimsPausedUntilMs = SaturatingMillis.atMs(clock.millis(), CLAIM_RETRY_BACKOFF);
      log.warn("Could not claim held instances, retrying shortly: {}", e.toString());
      return;
    }
    claimTime.record(System.nanoTime() - claimStartNanos, TimeUnit.NANOSECONDS);
    if (log.isDebugEnabled()) {
      long oldestDueMs = PooledEvent.oldestDueMs(events.values());
      log.debug(
          "Claimed {} of {} held instance(s) in {} ms, the oldest {} ms past due",
          won.size(),
          events.size(),
          (System.nanoTime() - claimStartNanos) / 1_000_000,
          SaturatingMillis.subtract(nowMs, oldestDueMs));
    }
    claimed.increment(won.size());
    conflicts.increment(events.size() - won.size());
    if (events.size() != won.size()) {
      Set<String> wonIds = new HashSet<>();
      won.forEach(c -> wonIds.add(c.instanceId()));
      for (PooledEvent pooled : events.values()) {
        if (!wonIds.contains(pooled.event().instanceId())) {
          late.add(pooled, nowMs);
        }
      }
    }
    gate.pass(won, PooledEvent.poolsByInstance(events), prefetch);
  }

  /** Claims, once more, the events that lost only because they were not due yet and now are. */
  private void claimLate(long nowMs) {
    List<PooledEvent> due = late.takeDue(nowMs);
    if (due.isEmpty()) {
      return;
    }
    Map<String, PooledEvent> events = new LinkedHashMap<>();
    Map<String, Integer> roomLeft = new HashMap<>();
    for (PooledEvent p : due) {
      // Its pool may have filled (or be switched off, or serial) since it was taken: then it waits
      // with the others, so a late claim never starts more than the pool has room for.
      int room = roomLeft.computeIfAbsent(p.pool(), port::room);
      if (room > 0 && events.putIfAbsent(p.event().instanceId(), p) == null) {
        roomLeft.put(p.pool(), room - 1);
      } else if (room <= 0) {
        held.add(p.pool(), p.event());
        inbox.held(held.size());
      }
    }
    if (events.isEmpty()) {
      return;
    }
    try {
      long claimStartNanos = System.nanoTime();
      List<ClaimedInstance> won = port.claim(events.keySet(), nowMs);
      claimTime.record(System.nanoTime() - claimStartNanos, TimeUnit.NANOSECONDS);
      claimed.increment(won.size());
      gate.pass(won, PooledEvent.poolsByInstance(events), CompletableFuture.completedFuture(null));
    } catch (RuntimeException e) {
      // A lost transaction (a deadlock, a lock wait, an outage) loses no event: they wait held,
      // claimed at the next pass as any held event is, before the reaper's re-emit (3 s) is due.
      for (PooledEvent p : events.values()) {
        held.add(p.pool(), p.event());
      }
      inbox.held(held.size());
      log.warn(
          "Late claim of {} instance(s) failed; they wait held and are claimed again: {}",
          events.size(),
          e.toString());
    }
  }

  private void handBackHeld(String why) {
    Map<String, List<TaskDueEvent>> all = new LinkedHashMap<>(held.takeAll());
    // Events waiting for their due time go back too: the partition's next owner claims them.
    for (PooledEvent waiting : late.takeAll()) {
      all.computeIfAbsent(waiting.pool(), pool -> new ArrayList<>()).add(waiting.event());
    }
    inbox.held(0);
    if (all.isEmpty()) {
      return;
    }
    try {
      port.handBack(all, why);
    } catch (RuntimeException e) {
      log.warn("Could not hand held events back; the reaper re-emits them: {}", e.toString());
    }
  }

  /** At stop: takes the inbox and hands back everything held or waiting for its due time. */
  private void finish() {
    ClaimInbox.Entry next;
    while ((next = inbox.poll()) != null) {
      accept(next);
    }
    handBackHeld("shutting down");
    inbox.publish(held.size());
  }

  /**
   * Stops the loop and waits for its thread to end (at most the stop wait): a claim under way
   * starts what it won before this returns, and what is held or handed over goes back to its topic
   * (on the loop's thread, or on the caller's if the loop never started). Past the stop wait it
   * gives up on the loop, after any hand-over to the pools in progress. No run starts after this
   * returns. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    stopping = true;
    inbox.stop();
    if (!thread.isAlive()) {
      if (thread.getState() == Thread.State.NEW) {
        finish();
      }
      return;
    }
    DaemonThreads.awaitEnd(thread, stopWait);
    if (thread.isAlive()) {
      gate.close(); // after a hand-over in progress, so none begins once this returns
      log.warn("The claim loop did not stop within {} ms; interrupting it", stopWait.toMillis());
      thread.interrupt();
    }
  }
}
