package dev.ax.ticker.reaper;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.RetryBudget;
import dev.ax.common.stage.Switches;
import dev.ax.common.store.AfterFailure;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.Outcome;
import dev.ax.common.store.OutcomeRecording;
import dev.ax.common.store.StoreException;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.ticker.TickerConfig;
import dev.ax.ticker.fire.DueEmitter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovers work that a crash left behind, on the ticker leader only:
 *
 * <ul>
 *   <li>RUNNING instances whose run lease expired (their dispatcher died) go back to DISPATCHED and
 *       are emitted again; the next claim starts the next attempt. Such a take-back is counted, and
 *       uses up none of the task's retries. An instance already taken back {@code maxTakebacks}
 *       times in its retry budget is not taken back again: its expired run is recorded FAILED and
 *       the instance DEAD, with a reason that says so, and the completion and dead-letter events a
 *       dispatcher would have owed go through the outbox (see {@link EndedRunEmitter}).
 *   <li>DISPATCHED instances nobody claimed within {@code unclaimedAfter} (the due event was lost,
 *       or sent before a ticker crash) are stamped again and re-emitted; not while the {@code
 *       dispatch} switch holds their group (they are unclaimed on purpose then).
 *   <li>DISPATCHED instances a previous leader emitted and nobody claimed yet are stamped with this
 *       leader's epoch and emitted again (dispatchers drop events of an older epoch than the newest
 *       they saw, so this is what keeps a hand-over from stranding them until {@code
 *       unclaimedAfter}). {@link #adoptPredecessorDispatches()} runs at once on a takeover and on
 *       every pass.
 *   <li>ACTIVE periodic tasks with no live instance get their next firing back ({@link
 *       ChainRepair}): a CRON or FIXED_RATE task at the schedule's next slot, a FIXED_DELAY task
 *       whose last run ended over {@code unclaimedAfter} ago (the completion event that chains it
 *       was lost) {@code interval} after that run ended, with the id the chainer would have used.
 * </ul>
 *
 * Take-backs wait while the database has answered this node for less than {@code unclaimedAfter}
 * after an outage: a lease that expired while the database was away says nothing of its dispatcher,
 * which renews it once the database answers.
 *
 * <p>All are conditional UPDATEs fenced by the leader's lease, so a reaper racing a slow dispatcher
 * cannot cause a second run of one attempt: the slow dispatcher's outcome no longer matches (owner
 * and attempt), and the new claim is a new attempt. Each pass handles at most {@code maxPerPass}
 * rows of each kind.
 *
 * <p>Threading: {@link #pass()} is called from one thread (the ticker's scheduler).
 */
public final class Reaper {

  private static final Logger log = LoggerFactory.getLogger(Reaper.class);

  private final ReaperStore store;
  private final Clock clock;
  private final Supplier<Optional<LeaseFence>> fence;
  private final DueEmitter emitter;
  private final Duration unclaimedAfter;
  private final int maxPerPass;
  private final Counters counters;
  private final ChainRepair chains;
  private final ShardSettlement shards;
  private final TaskStore tasks;
  private final EndedRunEmitter endedEmitter;
  private final int maxTakebacks;
  private final Supplier<Switches.DispatchHold> dispatchHold;
  private final Predicate<Duration> databaseSteadyFor;
  private boolean holdingTakeBacks;

  /**
   * Reads {@code AX_REAPER_UNCLAIMED_AFTER}, {@code AX_TICKER_MAX_BATCH} (rows of each kind per
   * pass) and {@code AX_MAX_TAKEBACKS} (how often one instance's run is taken back in its retry
   * budget before the next expired run ends it DEAD instead) from {@code config}.
   *
   * @param tasks where the specs of runs ended DEAD are read (their retry budget)
   * @param chains the chain repair each pass ends with
   * @param shards the settlement of sharded firings whose last shard ended, after the chain repair
   * @param fence this node's lease fence when it leads: the reaper works on the leader only
   * @param dispatchHold the groups the {@code dispatch} switches hold now: not emitted again
   * @param databaseSteadyFor whether the database has answered this node for at least the given
   *     time (and is answering now): expired run leases are taken back only then
   */
  public Reaper(
      ReaperStore store,
      TaskStore tasks,
      ChainRepair chains,
      ShardSettlement shards,
      Clock clock,
      TickerConfig config,
      Supplier<Optional<LeaseFence>> fence,
      DueEmitter emitter,
      EndedRunEmitter endedEmitter,
      Supplier<Switches.DispatchHold> dispatchHold,
      Predicate<Duration> databaseSteadyFor,
      MeterRegistry meters) {
    this.store = store;
    this.tasks = tasks;
    this.chains = chains;
    this.shards = shards;
    this.clock = clock;
    this.unclaimedAfter = config.reaperUnclaimedAfter();
    this.maxPerPass = config.maxBatch();
    this.maxTakebacks = config.maxTakebacks();
    this.fence = fence;
    this.emitter = emitter;
    this.endedEmitter = endedEmitter;
    this.dispatchHold = dispatchHold;
    this.databaseSteadyFor = databaseSteadyFor;
    this.counters = Counters.in(meters);
  }

  /** The reaper's counts, one per kind of recovery. */
  private record Counters(Counter reclaimed, Counter reemitted, Counter adopted, Counter ended) {

    static Counters in(MeterRegistry meters) {
      return new Counters(
          meters.counter("ax.reaper.runs.reclaimed"),
          meters.counter("ax.reaper.unclaimed.reemitted"),
          meters.counter("ax.reaper.predecessor.reemitted"),
          meters.counter("ax.reaper.runs.ended"));
    }
  }

  /**
   * Ends, DEAD, the expired runs of instances taken back {@code maxTakebacks} times already: a task
   * that kills its dispatcher every time must not go round for ever.
   */
  private void endRunsTakenBackTooOften(LeaseFence fence, long nowMs) {
    List<ReaperStore.ExpiredRun> runs =
        store.findRunsTakenBackTooOften(nowMs, maxTakebacks, maxPerPass);
    if (runs.isEmpty()) {
      return;
    }
    Map<String, StoredTask> specs =
        tasks.findAll(runs.stream().map(ReaperStore.ExpiredRun::taskId).distinct().toList());
    List<Outcome> outcomes = new ArrayList<>(runs.size());
    List<List<OutboxMessage>> events = new ArrayList<>(runs.size());
    for (ReaperStore.ExpiredRun run : runs) {
      StoredTask task = specs.get(run.taskId());
      Integer maxRetries = task == null ? null : task.spec().retry().maxRetries();
      // The run that just died neither failed nor is taken back: the failures are the others.
      int failed = RetryBudget.failed(run.attempt() - run.retryBase(), run.takenBack(), false);
      Outcome outcome =
          new Outcome(
              run.instanceId(),
              run.taskId(),
              run.attempt(),
              InstanceStatus.FAILED,
              "its dispatcher " + run.owner() + " died: the run lease expired",
              nowMs,
              new AfterFailure.Dead(
                  RetryBudget.takenBackTooOften(
                      run.takenBack(), maxTakebacks, run.attempt(), failed, maxRetries)));
      outcomes.add(outcome);
      events.add(endedEmitter.eventsOwed(run, outcome, task, nowMs));
    }
    String token = UUID.randomUUID().toString();
    OutcomeRecording recorded =
        store.endExpiredRuns(outcomes, events, token, fence, maxTakebacks, nowMs);
    List<OutboxMessage> owed = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      Outcome outcome = outcomes.get(i);
      if (!recorded.isRecorded(outcome)) {
        continue; // renewed, recorded or taken over meanwhile
      }
      ReaperStore.ExpiredRun run = runs.get(i);
      log.warn(
          "{} attempt {} DEAD, not taken back again: {} [traceId={}]",
          run.instanceId(),
          run.attempt(),
          ((AfterFailure.Dead) outcome.after()).reason(),
          run.traceId());
      owed.addAll(events.get(i));
      counters.ended().increment();
    }
    endedEmitter.send(token, owed);
  }

  /**
   * The unclaimed rows to emit again: none while {@code dispatch} is off (every row is unclaimed on
   * purpose, and a re-emit would only add an audit row and an event per row per pass), none of a
   * group whose {@code dispatch.<group>} is off.
   */
  private List<DueInstance> restampUnclaimed(LeaseFence fence, long nowMs) {
    Switches.DispatchHold hold = dispatchHold.get();
    if (hold.all()) {
      return List.of();
    }
    long olderThanMs = SaturatingMillis.atMs(nowMs, unclaimedAfter.negated());
    return hold.groups().isEmpty()
        ? store.restampUnclaimed(fence, olderThanMs, nowMs, maxPerPass)
        : store.restampUnclaimedExcept(fence, olderThanMs, nowMs, maxPerPass, hold::holds);
  }

  /**
   * Emits again, at this leader's epoch, what a previous leader dispatched and nobody claimed. Does
   * nothing unless this node leads. Called on the ticker's scheduler thread.
   */
  public void adoptPredecessorDispatches() {
    Optional<LeaseFence> current = fence.get();
    if (current.isEmpty()) {
      return;
    }
    try {
      adopt(current.get(), clock.millis());
    } catch (RuntimeException e) {
      log.warn(
          "Could not adopt the previous leader's dispatches, next pass retries: {}", e.toString());
    }
  }

  private void adopt(LeaseFence fence, long nowMs) {
    List<DueInstance> inherited = store.adoptPredecessorDispatches(fence, nowMs, maxPerPass);
    if (!inherited.isEmpty()) {
      log.info(
          "Emitting again {} instance(s) a previous leader dispatched and nobody claimed yet",
          inherited.size());
      emitter.emit(inherited, fence.epoch(), nowMs);
      counters.adopted().increment(inherited.size());
    }
  }

  /**
   * False while the database has answered for less than {@code unclaimedAfter} since an outage: a
   * run lease that expired while the database was away says nothing of its dispatcher, which renews
   * it as soon as the database answers again. A lease is only taken back once its owner missed
   * renewals while the database was reachable.
   */
  private boolean mayTakeBack() {
    boolean steady = databaseSteadyFor.test(unclaimedAfter);
    if (steady == holdingTakeBacks) {
      holdingTakeBacks = !steady;
      if (holdingTakeBacks) {
        log.info(
            "The database was away: expired run leases are not taken back until it has answered"
                + " for {} ms (their dispatchers renew them first)",
            unclaimedAfter.toMillis());
      } else {
        log.info("Expired run leases are taken back again");
      }
    }
    return steady;
  }

  /** One pass; does nothing unless this node leads. */
  public void pass() {
    Optional<LeaseFence> current = fence.get();
    if (current.isEmpty()) {
      return;
    }
    try {
      long nowMs = clock.millis();
      if (mayTakeBack()) {
        endRunsTakenBackTooOften(current.get(), nowMs);
        List<DueInstance> expired =
            store.reclaimExpiredRuns(current.get(), nowMs, maxPerPass, maxTakebacks);
        if (!expired.isEmpty()) {
          log.warn(
              "Reaper took back {} run(s) whose lease expired; emitting them again",
              expired.size());
          emitter.emit(expired, current.get().epoch(), nowMs);
          counters.reclaimed().increment(expired.size());
        }
      }
      adopt(current.get(), nowMs);
      List<DueInstance> unclaimed = restampUnclaimed(current.get(), nowMs);
      if (!unclaimed.isEmpty()) {
        log.warn(
            "Reaper re-emits {} instance(s) DISPATCHED but unclaimed for over {} ms",
            unclaimed.size(),
            unclaimedAfter.toMillis());
        emitter.emit(unclaimed, current.get().epoch(), nowMs);
        counters.reemitted().increment(unclaimed.size());
      }
      chains.pass(current.get(), nowMs);
      shards.pass("reaper", nowMs);
    } catch (StoreException e) {
      log.warn("Reaper pass failed, next pass retries: {}", e.getMessage());
    } catch (RuntimeException e) {
      // Never let one failure cancel the schedule: recovery must keep running.
      log.error("Reaper pass failed unexpectedly, next pass retries", e);
    }
  }
}
