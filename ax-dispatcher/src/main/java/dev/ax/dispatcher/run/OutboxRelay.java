package dev.ax.dispatcher.run;

import dev.ax.common.stage.StageContext;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.OutboxStore;
import dev.ax.common.store.StoreException;
import dev.ax.common.thread.DaemonThreads;
import dev.ax.common.time.Clock;
import io.micrometer.core.instrument.Counter;
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
 *       second, when none of its own re-sends is still in flight, claims rows older than {@code
 *       relayAfter} (a dispatcher died between commit and send, or the broker was away) and sends
 *       them again. Every dispatcher relays every row: the one that wrote a row may be dead.
 * </ul>
 *
 * A deletion that fails (the database is away) is tried again; one given up on (more than {@link
 * #MAX_PENDING_DELETES} waiting) only means the row is sent once more later. Nothing here can lose
 * an event: a row leaves the outbox only after the broker acknowledged it.
 *
 * <p>Threading: {@link #send} from any thread (the recorder's); producer callbacks only queue; the
 * database is touched by the relay thread alone.
 */
public final class OutboxRelay implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
  private static final Duration SCAN_INTERVAL = Duration.ofSeconds(1);
  private static final int CLAIM_LIMIT = 500;

  /** Confirmed tokens kept for deletion while the database is away, at most. */
  static final int MAX_PENDING_DELETES = 100_000;

  private final OutboxStore outbox;
  private final KafkaProducer<String, byte[]> producer;
  private final Clock clock;
  private final Duration relayAfter;
  private final LinkedBlockingQueue<String> confirmed = new LinkedBlockingQueue<>();
  private final AtomicBoolean relayInFlight = new AtomicBoolean();
  private final Counter resent;
  private final Thread thread;
  private volatile boolean running = true;

  /**
   * @param producer the dispatcher's own; not closed here
   * @param relayAfter rows older than this are sent again ({@code AX_OUTBOX_RELAY_AFTER})
   */
  public OutboxRelay(
      StageContext context, KafkaProducer<String, byte[]> producer, Duration relayAfter) {
    this.outbox = new OutboxStore(context.dataSource());
    this.clock = context.clock();
    this.producer = producer;
    this.relayAfter = relayAfter;
    this.resent =
        Counter.builder("ax.outbox.resent")
            .description(
                "events sent again from the outbox, not confirmed in time after their outcome")
            .register(context.meters());
    this.thread = DaemonThreads.thread("ax-dispatcher-outbox", this::run);
  }

  public OutboxRelay start() {
    thread.start();
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
   * rethrown.
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
      OutboxMessage message = messages.get(i);
      try {
        producer.send(
            message.toRecord(),
            (metadata, error) -> {
              if (error != null) {
                failed.set(true);
                onFailure.failed(message, error);
              }
              settleOne.run();
            });
      } catch (RuntimeException e) {
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

  private void run() {
    List<String> toDelete = new ArrayList<>();
    long nextScanNanos = System.nanoTime();
    while (running) {
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
          nextScanNanos = System.nanoTime() + SCAN_INTERVAL.toNanos();
          relayStale();
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

  /** Claims and sends rows nobody confirmed within {@code relayAfter}; one claim in flight. */
  private void relayStale() {
    if (relayInFlight.get()) {
      return;
    }
    long nowMs = clock.millis();
    OutboxStore.Claimed claimed;
    try {
      claimed = outbox.claimStale(nowMs - relayAfter.toMillis(), CLAIM_LIMIT, nowMs);
    } catch (StoreException e) {
      log.debug("Could not look for unsent outbox rows: {}", e.toString());
      return;
    }
    if (claimed.messages().isEmpty()) {
      return;
    }
    log.info(
        "Sending {} event(s) again from the outbox: not confirmed within {} ms of their outcome",
        claimed.messages().size(),
        relayAfter.toMillis());
    resent.increment(claimed.messages().size());
    relayInFlight.set(true);
    try {
      sendAll(claimed.token(), claimed.messages(), (m, e) -> {}, () -> relayInFlight.set(false));
    } catch (RuntimeException e) {
      // The rows stay, claimed: relayed again after relayAfter.
      log.warn("Could not send outbox events again: {}", e.toString());
    }
  }

  /** Stops the relay after deleting what is confirmed; what is not stays for the next relay. */
  @Override
  public void close() {
    running = false;
    DaemonThreads.awaitEnd(thread, Duration.ofSeconds(10));
  }
}
