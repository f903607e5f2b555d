package dev.ax.dispatcher.run;

import dev.ax.common.contract.Echo;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.kafka.TransientFailures;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AfterFailure;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.Outcome;
import dev.ax.common.store.OutcomeRecording;
import dev.ax.common.trace.TraceLog;
import dev.ax.dispatcher.store.OutcomeStore;
import dev.ax.spi.ExecutionResult;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records outcomes in batches: one transaction of conditional UPDATEs (RUNNING, this owner, this
 * attempt), their audit rows and the events each recorded outcome owes (its completion on {@code
 * ax.task.completed}, the flow copy, the retry or dead letter) in the outbox; then sends those
 * events through the {@link OutboxRelay}, then calls the executor's hooks. An outcome and its
 * events are committed together, so a crash after the commit delays the events (the relay sends
 * them) but cannot lose them. An outcome whose row no longer matches (the run was taken back) is
 * counted and dropped, never emitted.
 *
 * <p>Failures: a batch that fails from an outage ({@link TransientFailures}) is tried again every
 * {@link #OUTAGE_RETRY}; one that fails otherwise is recorded one outcome at a time, and an outcome
 * that fails alone, not from an outage (a data error), is logged at ERROR with its reason, counted
 * ({@code ax.dispatcher.outcome.parked}) and passed over, the rest recorded. At stop ({@link
 * #close()}) it records what is queued, within {@link #STOP_WAIT}; an outage at stop ends the
 * recording, and nothing is dropped silently: what is left is logged at WARN and counted ({@code
 * ax.dispatcher.outcome.unrecorded.at.stop}), and the reaper takes those runs back when their lease
 * ends.
 *
 * <p>Threading: any thread may {@link #accept}; one thread ({@code ax-dispatcher-record}) writes.
 * The queue is bounded in practice by the claims in flight: each claimed attempt yields exactly one
 * completion.
 *
 * <p>Parts: {@link OwedEvents} (what each outcome owes), {@link OutcomeMeters} (its meters).
 */
public final class OutcomeRecorder extends LoopingPart {

  private static final Logger log = LoggerFactory.getLogger(OutcomeRecorder.class);
  private static final int MAX_BATCH = 500;

  /** How long {@link #close()} waits for what is queued to be recorded. */
  private static final Duration STOP_WAIT = Duration.ofSeconds(30);

  /** The wait before a batch is tried again after an outage. */
  private static final Duration OUTAGE_RETRY = Duration.ofSeconds(1);

  private final BudgetedWarnings failureLogs =
      new BudgetedWarnings(
          log, "failed attempt(s)", "ax_dispatcher_failed_total or ax_dispatcher_timeout_total");

  private final OutcomeStore store;
  private final OutboxRelay relay;
  private final OutcomePlanner planner;
  private final OutcomeMeters meters;
  private final LinkedBlockingQueue<Completion> queue = new LinkedBlockingQueue<>();

  /**
   * @param relay sends the events of each recorded batch
   */
  public OutcomeRecorder(
      OutcomeStore store, OutboxRelay relay, OutcomePlanner planner, MeterRegistry meters) {
    super(body -> new Thread(body, "ax-dispatcher-record"), STOP_WAIT);
    this.store = store;
    this.relay = relay;
    this.planner = planner;
    this.meters = new OutcomeMeters(meters);
  }

  public void start() {
    startLoop();
  }

  public void accept(Completion completion) {
    queue.add(completion);
  }

  @Override
  void loop() {
    List<Completion> batch = new ArrayList<>();
    try {
      while (running() || !queue.isEmpty() || !batch.isEmpty()) {
        if (batch.isEmpty()) {
          Completion first = queue.poll(100, TimeUnit.MILLISECONDS);
          if (first == null) {
            continue;
          }
          batch.add(first);
          queue.drainTo(batch, MAX_BATCH - 1);
        }
        batch = recordIsolatingPoison(batch);
        if (!batch.isEmpty()) {
          if (!running()) {
            break; // stopping: no waiting for the database to come back
          }
          Thread.sleep(OUTAGE_RETRY.toMillis()); // back-off while the database is away
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    leftUnrecorded(batch);
  }

  /**
   * Records {@code batch}. When it fails from an outage (see {@link TransientFailures}) it is to be
   * tried again as it is. When it fails otherwise, one outcome may be what fails (a data error):
   * the outcomes are recorded one at a time, and one that still fails alone, not from an outage, is
   * {@linkplain #park parked}, so that one poison outcome neither holds up the others nor is tried
   * forever.
   *
   * @return what is still to be recorded after an outage (empty when done)
   */
  private List<Completion> recordIsolatingPoison(List<Completion> batch) {
    try {
      record(batch);
      return new ArrayList<>();
    } catch (RuntimeException e) {
      if (TransientFailures.isTransient(e)) {
        log.warn(
            "Could not record {} outcome(s), retrying in {} ms: {}",
            batch.size(),
            OUTAGE_RETRY.toMillis(),
            Echo.cut(e.toString()));
        return batch;
      }
      if (batch.size() == 1) {
        park(batch.get(0), e);
        return new ArrayList<>();
      }
      log.warn(
          "Could not record {} outcome(s), not from an outage ({}); recording them one at a time",
          batch.size(),
          Echo.cut(e.toString()));
    }
    for (int i = 0; i < batch.size(); i++) {
      Completion c = batch.get(i);
      try {
        record(List.of(c));
      } catch (RuntimeException e) {
        if (TransientFailures.isTransient(e)) {
          log.warn(
              "Could not record {} outcome(s), retrying in {} ms: {}",
              batch.size() - i,
              OUTAGE_RETRY.toMillis(),
              Echo.cut(e.toString()));
          return new ArrayList<>(batch.subList(i, batch.size()));
        }
        park(c, e);
      }
    }
    return new ArrayList<>();
  }

  /**
   * Passes over an outcome that cannot be recorded even alone, not from an outage: logged at ERROR
   * with its reason and counted. Its run stays RUNNING under this owner; when its lease ends the
   * reaper takes it back, as for a dispatcher that died.
   */
  private void park(Completion c, RuntimeException reason) {
    meters.parked();
    try (TraceLog fields = traceLog(c)) {
      log.error(
          "Outcome {} of {} attempt {} cannot be recorded, not from an outage; passed over (the"
              + " run is taken back when its lease ends): {}",
          c.status(),
          c.claimed().instanceId(),
          c.claimed().attempt(),
          Echo.cut(reason.toString()),
          reason);
    }
  }

  /** At stop: what could not be recorded is said and counted, never dropped silently. */
  private void leftUnrecorded(List<Completion> batch) {
    List<Completion> left = new ArrayList<>(batch);
    queue.drainTo(left);
    if (left.isEmpty()) {
      return;
    }
    meters.leftAtStop(left.size());
    log.warn(
        "Stopping with {} outcome(s) not recorded (the database did not answer), e.g. {} attempt"
            + " {}: their runs stay RUNNING until their lease ends, then the reaper takes them back"
            + " and they run again",
        left.size(),
        left.get(0).claimed().instanceId(),
        left.get(0).claimed().attempt());
  }

  private void record(List<Completion> batch) {
    OutcomePlanner.Plan plan = planner.plan(batch);
    List<Outcome> outcomes = plan.outcomes();
    List<List<OutboxMessage>> events = plan.events();
    String token = UUID.randomUUID().toString();
    OutcomeRecording recording =
        store.recordOutcomes(outcomes, events, token, plan.owner(), plan.nowMs());
    List<OutboxMessage> owed = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      Completion c = batch.get(i);
      if (!recording.isRecorded(outcomes.get(i))) {
        meters.takenBack();
        try (TraceLog fields = traceLog(c)) {
          log.warn(
              "Outcome {} of {} attempt {} not recorded: the run was taken back",
              c.status(),
              c.claimed().instanceId(),
              c.claimed().attempt());
        }
        continue;
      }
      AfterFailure after = outcomes.get(i).after();
      meters.recorded(c, after);
      try (TraceLog fields = traceLog(c)) {
        logOutcome(c, after);
      }
      owed.addAll(events.get(i));
    }
    owed.addAll(recording.settledFirings());
    try {
      relay.send(token, owed, OutcomeRecorder::logUnsent);
    } catch (RuntimeException e) {
      // Committed with their outbox rows: the relay sends them after AX_OUTBOX_RELAY_AFTER.
      log.warn(
          "Could not send {} event(s) now; the outbox relays them: {}", owed.size(), e.toString());
    }
    for (int i = 0; i < batch.size(); i++) {
      if (recording.isRecorded(outcomes.get(i))) {
        callHook(batch.get(i));
      }
    }
  }

  private static void logUnsent(OutboxMessage message, Exception error) {
    log.warn(
        "Event for {} on {} not sent; the outbox relays it [traceId={}]: {}",
        message.key(),
        message.topic(),
        message.headers().get(RejectHeaders.TRACE_ID),
        error.toString());
  }

  private static TraceLog traceLog(Completion c) {
    return TraceLog.ofRun(
        c.claimed().traceId(),
        c.claimed().taskId(),
        c.claimed().instanceId(),
        c.context() == null ? null : c.context().taskTraceId());
  }

  /**
   * One line per attempt: a success at DEBUG, a failure at WARN without its stack (the stack goes
   * to the dead letter), within a budget, since failing tasks are input and must not flood the log.
   */
  private void logOutcome(Completion c, AfterFailure after) {
    long durationMs = c.finishedAtMs() - c.startedAtMs();
    if (c.status() == InstanceStatus.SUCCESS) {
      log.debug(
          "{} attempt {} SUCCESS in {} ms",
          c.claimed().instanceId(),
          c.claimed().attempt(),
          durationMs);
      return;
    }
    failureLogs.warn(
        "{} attempt {} {} after {} ms: {}; {}",
        c.claimed().instanceId(),
        c.claimed().attempt(),
        c.status(),
        durationMs,
        c.error(),
        after instanceof AfterFailure.Retry retry
            ? retry.reason()
            : after instanceof AfterFailure.Dead death ? "DEAD, " + death.reason() : "final");
  }

  private static void callHook(Completion c) {
    if (c.executor() == null) {
      return;
    }
    ExecutionResult result = c.result() != null ? c.result() : ExecutionResult.failure(c.error());
    try {
      if (c.status() == InstanceStatus.SUCCESS) {
        c.executor().onSuccess(c.context(), result);
      } else {
        c.executor().onFailure(c.context(), result);
      }
    } catch (RuntimeException e) {
      log.warn(
          "Hook of executor {} threw for {}: {}",
          c.executor().name(),
          c.claimed().instanceId(),
          e.toString());
    }
  }
}
