package dev.ax.dispatcher.run;

import dev.ax.dispatcher.store.ClaimedInstance;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * How long a claimed attempt may wait in its pool's queue before it starts, and who gives it back
 * when it waited longer. An attempt's deadline counts from its start, so waiting does not time it
 * out; instead, one that could not start within {@code maxWait} is settled unstarted and handed to
 * {@code giveBack}, which returns its row to DISPATCHED as the same attempt (no retry used), for
 * the reaper to emit again.
 *
 * <p>Thread-safety: {@code giveBack} is called on the watchdog's timer thread and must return at
 * once (hand the work over; no database round trip there).
 *
 * @param maxWait null: an attempt waits as long as it takes
 */
public record QueueBound(Duration maxWait, Consumer<ClaimedInstance> giveBack) {

  /** No bound: every claimed attempt waits for its worker however long that takes. */
  public static final QueueBound NONE = new QueueBound(null, claimed -> {});

  public QueueBound {
    Objects.requireNonNull(giveBack, "giveBack");
    if (maxWait != null && (maxWait.isNegative() || maxWait.isZero())) {
      throw new IllegalArgumentException("maxWait must be positive: " + maxWait);
    }
  }
}
