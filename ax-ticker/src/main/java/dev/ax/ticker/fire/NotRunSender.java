package dev.ax.ticker.fire;

import dev.ax.common.kafka.Topics;
import dev.ax.common.model.TriggerType;
import dev.ax.common.store.NotRunEvent;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.OutboxStore;
import dev.ax.common.store.StoreException;
import dev.ax.common.store.StoredTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The completion events of firings that did not run (SKIPPED by overlap, a missed catch-up window,
 * a misfire policy or a calendar; runs CANCELLED by CANCEL_OTHER): status and instance status
 * SKIPPED or CANCELLED, {@code error} the reason (its first word the {@link NotRunReason}), attempt
 * as stored, no claim or start. Built into the firing's own transaction (the outbox), sent by
 * {@link #send} right after its commit without waiting for the broker; once the broker has every
 * record of a firing its outbox rows are deleted by {@link #deleteSent} on the chores thread. What
 * is not confirmed (the broker away, this ticker dead) any dispatcher's outbox relay sends after
 * {@code AX_OUTBOX_RELAY_AFTER}: at least once.
 *
 * <p>Thread-safe: {@link #send} on the firing thread, the producer's callbacks on its I/O thread,
 * {@link #deleteSent} on the chores thread, meeting in a concurrent queue.
 */
public final class NotRunSender {

  private static final Logger log = LoggerFactory.getLogger(NotRunSender.class);

  /** Tokens whose rows were all confirmed, kept at most (beyond, the relay's duplicates). */
  static final int MAX_SENT_TOKENS = 10_000;

  private final Producer<String, byte[]> producer;
  private final Topics topics;
  private final OutboxStore outbox;
  private final ConcurrentLinkedQueue<String> sent = new ConcurrentLinkedQueue<>();
  private final AtomicInteger sentCount = new AtomicInteger();

  public NotRunSender(Producer<String, byte[]> producer, Topics topics, OutboxStore outbox) {
    this.producer = producer;
    this.topics = topics;
    this.outbox = outbox;
  }

  /** The events for {@code notRun}, with the batch's {@code tasks} (for the trigger type). */
  FiringStore.NotRunEvents eventsFor(Map<String, StoredTask> tasks) {
    return (notRun, actor, nowMs) -> {
      List<OutboxMessage> owed = new ArrayList<>(notRun.size());
      for (FiringStore.NotRun firing : notRun) {
        StoredTask task = tasks.get(firing.row().taskId());
        owed.add(event(firing, task == null ? null : task.spec().trigger().type(), actor, nowMs));
      }
      return owed;
    };
  }

  private OutboxMessage event(
      FiringStore.NotRun firing, TriggerType type, String actor, long nowMs) {
    return NotRunEvent.of(
        topics, firing.row(), firing.status(), firing.reason(), type, actor, nowMs);
  }

  /** Sends what a committed firing wrote to the outbox under {@code token}; never blocks. */
  void send(String token, List<OutboxMessage> owed) {
    if (token == null || owed.isEmpty()) {
      return;
    }
    AtomicInteger left = new AtomicInteger(owed.size());
    for (OutboxMessage message : owed) {
      try {
        producer.send(
            message.toRecord(),
            (metadata, error) -> {
              if (error != null) {
                left.set(-1); // the relay sends them; never counted down to 0 now
                log.debug(
                    "A not-run event was refused; the outbox relays it: {}", error.toString());
              } else if (left.decrementAndGet() == 0) {
                if (sentCount.incrementAndGet() <= MAX_SENT_TOKENS) {
                  sent.add(token);
                } else {
                  sentCount.decrementAndGet(); // the relay deletes them after sending again
                }
              }
            });
      } catch (RuntimeException e) {
        log.warn("Not-run events not sent now; the outbox relays them: {}", e.toString());
        return;
      }
    }
  }

  /** Deletes the outbox rows of firings whose events the broker confirmed; the rows deleted. */
  public int deleteSent() {
    List<String> tokens = new ArrayList<>();
    for (String token = sent.poll(); token != null; token = sent.poll()) {
      tokens.add(token);
      sentCount.decrementAndGet();
    }
    if (tokens.isEmpty()) {
      return 0;
    }
    try {
      return outbox.deleteBatches(tokens);
    } catch (StoreException e) {
      log.warn(
          "Could not delete the outbox rows of {} sent firing(s); the relay sends them again: {}",
          tokens.size(),
          e.toString());
      return 0;
    }
  }
}
