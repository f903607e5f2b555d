package dev.ax.dispatcher.run;

import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.OutboxStore;
import dev.ax.common.store.StoreException;
import dev.ax.common.thread.DaemonThreads;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends what the outbox holds and deletes it once the broker has it (see {@link OutboxStore}).
 *
 * <ul>
 *   <li>{@link #send}: right after an outcome batch commits, its events go out; when the broker has
 *       acknowledged every one, the batch's token is queued for deletion.
 *   <li>The relay thread ({@code ax-dispatcher-outbox}) deletes confirmed batches, and once a
 *       second ({@link RelaySchedule}) claims rows older than {@code relayAfter} (a dispatcher died
 *       between commit and send, or the broker was away) and sends them again, {@link #CLAIM_LIMIT}
 *       rows a claim. A claim that came back full means more rows are stale: the pass claims again
 *       at once, with at most {@link #MAX_CLAIMS_IN_FLIGHT} claims unconfirmed by the broker and
 *       for at most {@link #PASS_BUDGET}, and the next pass starts without waiting the second while
 *       rows remain; so a backlog drains as fast as the broker takes it, not 500 rows a second. A
 *       claim restamps its rows, so two claims never hold the same row. Every dispatcher relays
 *       every row: the one that wrote a row may be dead.
 * </ul>
 *
 * <p>Every send the broker does not take is counted by topic and error class ({@link RelayMeters}),
 * and a re-send's failure is logged at WARN within a budget: a row the broker refuses for good (a
 * record too large, a topic it does not authorize) stays in the outbox and is tried every {@code
 * relayAfter}, and the count says so.
 *
 * <p>A deletion that fails (the database is away) is tried again; one given up on (more than {@link
 * #MAX_PENDING_DELETES} waiting) only means the row is sent once more later. Nothing here can lose
 * an event: a row leaves the outbox only after the broker acknowledged it.
 *
 * <p>{@link #close()} stops the relay after deleting what is confirmed; what is not stays for the
 * next relay.
 *
 * <p>Threading: {@link #send} from any thread (the recorder's); producer callbacks only queue; the
 * database is touched by the relay thread alone.
 */
public final class OutboxRelay extends LoopingPart {

  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

  /** Rows one claim takes, at most. */
  static final int CLAIM_LIMIT = 500;

  /** Claims sent but not all settled by the broker, at most: bounds what the producer buffers. */
  static final int MAX_CLAIMS_IN_FLIGHT = 4;

  /** How long one pass of the relay claims, at most, before it deletes what is confirmed. */
  static final Duration PASS_BUDGET = Duration.ofSeconds(2);

  /** How long {@link #close()} waits for the relay to delete what is confirmed. */
  private static final Duration STOP_WAIT = Duration.ofSeconds(10);

  /** Confirmed tokens kept for deletion while the database is away, at most. */
  static final int MAX_PENDING_DELETES = 100_000;

  private final OutboxStore outbox;
  private final KafkaProducer<String, byte[]> producer;
  private final RelaySchedule schedule;
  private final RelayMeters meters;
  private final LinkedBlockingQueue<String> confirmed = new LinkedBlockingQueue<>();
  private final AtomicInteger claimsInFlight = new AtomicInteger();
  private final BudgetedWarnings resendFailureLogs =
      new BudgetedWarnings(log, "outbox re-send failure(s)", "ax_outbox_send_failed_total");

  /**
   * @param producer the dispatcher's own; not closed here
   */
  public OutboxRelay(
      OutboxStore outbox,
      KafkaProducer<String, byte[]> producer,
      RelaySchedule schedule,
      MeterRegistry meters) {
    super(body -> DaemonThreads.thread("ax-dispatcher-outbox", body), STOP_WAIT);
    this.outbox = outbox;
    this.producer = producer;
    this.schedule = schedule;
    this.meters = RelayMeters.of(meters);
  }

  public OutboxRelay start() {
    startLoop();
    return this;
  }

  /**
   * Sends a committed batch's events; its token is deleted once every one is acknowledged.
   *
   * @param onFailure called (on the producer's thread) with a message and its error when the broker
   *     does not take it; the row stays and is relayed
   */
  public void send(String token, List<OutboxMessage> messages, FailureListener onFailure) {
    sendAll(token, messages, onFailure, () -> {});
  }

  /**
   * Sends {@code messages}; when the broker has acknowledged every one, queues {@code token} for
   * deletion. {@code onSettled} runs once, when every send has called back or failed to start. A
   * send that throws at once leaves the rest unsent (their rows stay for the relay) and is
   * rethrown; once one send has failed, the rest are not tried (their rows stay for the relay), so
   * that a broker that is away blocks the caller for one {@code max.block.ms}, not one per event.
   */
  private void sendAll(
      String token, List<OutboxMessage> messages, FailureListener onFailure, Runnable onSettled) {
    if (messages.isEmpty()) {
      onSettled.run();
      return;
    }
    AtomicInteger pending = new AtomicInteger(messages.size());
    AtomicBoolean failed = new AtomicBoolean();
    Runnable settleOne =
        () -> {
          if (pending.decrementAndGet() == 0) {
            if (!failed.get()) {
              confirmed.add(token);
            }
            onSettled.run();
          }
        };
    for (int i = 0; i < messages.size(); i++) {
      if (failed.get()) {
        // A send failed already (a refusal, or a timeout called back on this thread after
        // max.block.ms): the broker is away or refusing, and each further send could block as
        // long. The rest stay in the outbox for the relay.
        if (pending.addAndGet(-(messages.size() - i)) == 0) {
          onSettled.run();
        }
        return;
      }
      OutboxMessage message = messages.get(i);
      try {
        producer.send(
            message.toRecord(),
            (metadata, error) -> {
              if (error != null) {
                failed.set(true);
                meters.sendFailed(message, error);
                onFailure.failed(message, error);
              }
              settleOne.run();
            });
      } catch (RuntimeException e) {
        meters.sendFailed(message, e);
        failed.set(true); // this one and those after it never call back
        if (pending.addAndGet(-(messages.size() - i)) == 0) {
          onSettled.run();
        }
        throw e;
      }
    }
  }

  /** What a failed send reports. */
  @FunctionalInterface
  public interface FailureListener {
    void failed(OutboxMessage message, Exception error);
  }

  @Override
  void loop() {
    List<String> toDelete = new ArrayList<>();
    long nextScanNanos = System.nanoTime();
    while (running()) {
      try {
        String token = confirmed.poll(100, TimeUnit.MILLISECONDS);
        if (token != null) {
          toDelete.add(token);
        }
        confirmed.drainTo(toDelete);
        if (!toDelete.isEmpty()) {
          deleteQuietly(toDelete);
        }
        if (System.nanoTime() - nextScanNanos >= 0) {
          boolean staleLeft = relayStale();
          // Rows remain: the next pass starts once this one's deletions are done, not a second on.
          nextScanNanos = System.nanoTime() + (staleLeft ? 0 : schedule.scanInterval().toNanos());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        log.error("Outbox relay caught an unexpected error; continuing", e);
      }
    }
    confirmed.drainTo(toDelete);
    deleteQuietly(toDelete);
  }

  private void deleteQuietly(List<String> tokens) {
    if (tokens.isEmpty()) {
      return;
    }
    try {
      outbox.deleteBatches(tokens);
      tokens.clear();
    } catch (StoreException e) {
      log.debug("Could not delete {} sent outbox batch(es) yet: {}", tokens.size(), e.toString());
      if (tokens.size() > MAX_PENDING_DELETES) {
        log.warn(
            "Giving up deleting {} sent outbox batch(es): their events will be sent again",
            tokens.size());
        tokens.clear();
      }
    }
  }

  /**
   * One pass: claims and sends rows nobody confirmed within {@code relayAfter}, a claim after
   * another while they come back full, with at most {@link #MAX_CLAIMS_IN_FLIGHT} unsettled, for at
   * most {@link #PASS_BUDGET}.
   *
   * @return whether stale rows may remain (the last claim came back full, or the pass stopped at
   *     one of its bounds before it looked)
   */
  private boolean relayStale() {
    long passEndNanos = System.nanoTime() + PASS_BUDGET.toNanos();
    while (running()) {
      if (claimsInFlight.get() >= MAX_CLAIMS_IN_FLIGHT || System.nanoTime() - passEndNanos >= 0) {
        return true;
      }
      long nowMs = schedule.clock().millis();
      OutboxStore.Claimed claimed;
      try {
        claimed = outbox.claimStale(schedule.staleBeforeMs(nowMs), CLAIM_LIMIT, nowMs);
      } catch (StoreException e) {
        log.debug("Could not look for unsent outbox rows: {}", e.toString());
        return false;
      }
      if (claimed.messages().isEmpty()) {
        return false;
      }
      log.info(
          "Sending {} event(s) again from the outbox: not confirmed within {} ms of their outcome",
          claimed.messages().size(),
          schedule.relayAfter().toMillis());
      meters.resent(claimed.messages().size());
      claimsInFlight.incrementAndGet();
      try {
        sendAll(
            claimed.token(),
            claimed.messages(),
            this::logResendFailure,
            claimsInFlight::decrementAndGet);
      } catch (RuntimeException e) {
        // The rows stay, claimed: relayed again after relayAfter.
        log.warn("Could not send outbox events again: {}", e.toString());
        return false;
      }
      if (claimed.messages().size() < CLAIM_LIMIT) {
        return false;
      }
    }
    return false;
  }

  /** A re-sent event the broker did not take: at WARN within a budget (each is counted). */
  private void logResendFailure(OutboxMessage message, Exception error) {
    resendFailureLogs.warn(
        "Outbox event for {} on {} not sent again; it stays and is tried after {} ms: {}",
        message.key(),
        message.topic(),
        schedule.relayAfter().toMillis(),
        error.toString());
  }
}
