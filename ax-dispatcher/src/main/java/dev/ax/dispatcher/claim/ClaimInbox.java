package dev.ax.dispatcher.claim;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The hand-over between the intake and the {@link ClaimLoop}: one FIFO inbox of polled batches and
 * hand-back requests (so a hand-back covers every event offered before it), the backlog the
 * intake's back-pressure reads, and the signal that lets the intake wait until the loop has taken
 * its last batch into a pass. This is all the claim loop shares with other threads.
 *
 * <p>Threading: {@link #offer}, {@link #requestHandBack}, {@link #backlog}, {@link #awaitPickedUp}
 * and {@link #stop} from any thread; {@link #poll}, {@link #moved}, {@link #held} and {@link
 * #publish} from the claim loop's thread only.
 */
public final class ClaimInbox {

  /** What the inbox carries, in the order it was handed over. */
  sealed interface Entry permits Batch, HandBackRequest, Stop {}

  /** A polled batch, to hold until its pool has room. */
  record Batch(List<PooledEvent> events) implements Entry {
    Batch {
      events = List.copyOf(events);
    }
  }

  /** Hand back what is held, for {@code why}. */
  record HandBackRequest(String why) implements Entry {}

  /** Wakes the loop to stop; carries nothing to do. */
  record Stop() implements Entry {}

  private static final Stop STOP = new Stop();

  private final BlockingQueue<Entry> entries = new LinkedBlockingQueue<>();

  /** Events offered and not yet moved into the held events; written by both sides. */
  private final AtomicInteger unpicked = new AtomicInteger();

  /** The held events' count as of the last pass; written by the loop thread only. */
  private volatile int heldCount;

  /** Signals a published pass to {@link #awaitPickedUp}; never held across a round trip. */
  private final Object progress = new Object();

  private volatile boolean stopped;

  /** Loop thread only: events moved into the held events since the last publish. */
  private int movedSincePublish;

  /** Hands a polled batch over; returns at once. */
  public void offer(List<PooledEvent> batch) {
    if (batch.isEmpty()) {
      return;
    }
    unpicked.addAndGet(batch.size());
    entries.add(new Batch(batch));
  }

  /** Asks the loop to send back everything offered so far and not claimed. */
  public void requestHandBack(String why) {
    entries.add(new HandBackRequest(why));
  }

  /** Events handed over or held and not claimed as of the last pass. */
  public int backlog() {
    return unpicked.get() + heldCount;
  }

  /**
   * Waits, at most {@code maxWait}, until the loop has taken everything offered into a pass, so
   * that {@link #backlog()} says what the pools could not take. Waits on the loop's hand-over only,
   * never on a claim's round trip beyond {@code maxWait}.
   */
  public void awaitPickedUp(Duration maxWait) {
    long deadlineNanos = System.nanoTime() + maxWait.toNanos();
    synchronized (progress) {
      while (unpicked.get() > 0 && !stopped) {
        long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (leftMs <= 0) {
          return;
        }
        try {
          progress.wait(leftMs);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Ends waiting in {@link #awaitPickedUp} and wakes the loop from {@link #poll(long)}. */
  void stop() {
    stopped = true;
    entries.add(STOP);
  }

  /** The next entry, waiting at most {@code waitMs} for one; null when none came. */
  Entry poll(long waitMs) throws InterruptedException {
    return entries.poll(waitMs, TimeUnit.MILLISECONDS);
  }

  /** The next entry, or null when there is none now. */
  Entry poll() {
    return entries.poll();
  }

  /** The loop moved {@code events} of a batch into its held events. */
  void moved(int events) {
    movedSincePublish += events;
  }

  /** The loop holds {@code count} events now (a claim failed, or it handed them back). */
  void held(int count) {
    heldCount = count;
  }

  /** Publishes a pass: what was moved is no longer unpicked, and {@code count} events are held. */
  void publish(int count) {
    // Unpicked first: between the two writes the intake may see one batch too few, never too many.
    unpicked.addAndGet(-movedSincePublish);
    heldCount = count;
    if (movedSincePublish > 0) {
      movedSincePublish = 0;
      synchronized (progress) {
        progress.notifyAll();
      }
    }
  }
}
