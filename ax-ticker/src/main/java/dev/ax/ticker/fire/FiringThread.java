package dev.ax.ticker.fire;

import dev.ax.common.thread.SteppingThread;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner thread of a {@link TickLoop}, {@code ax-ticker-fire}: it steps the loop and waits as
 * long as the loop allows, and each time the loop starts leading at a new epoch it runs {@code
 * onNewLead} once (the stage rebuilds the window from the database at once rather than at the next
 * load interval, and adopts its predecessor's dispatches).
 *
 * <p>An unexpected error in a step or in {@code onNewLead} is logged and the loop goes on: only
 * {@link #close()} ends it.
 *
 * <p>Thread-safety: {@link #start()} and {@link #close()} are called by the stage's owner; the loop
 * and {@code onNewLead} run on this thread alone.
 */
public final class FiringThread extends SteppingThread {

  private static final Logger log = LoggerFactory.getLogger(FiringThread.class);

  /**
   * How long {@link #close()} lets a step under way (a firing batch, whose sends and writes an
   * interrupt would break off) end by itself before it interrupts the thread.
   */
  static final Duration STEP_GRACE = Duration.ofSeconds(2);

  /** How long {@link #close()} then waits for the interrupted thread to end. */
  static final Duration STOP_WAIT = Duration.ofSeconds(10);

  private final TickLoop loop;
  private final Runnable onNewLead;

  /** The epoch the loop led at on the step before, -1 when it did not lead; this thread only. */
  private long previousEpoch = -1;

  /**
   * @param onNewLead runs on this thread when the loop leads at an epoch it did not lead at on the
   *     step before; it should only hand work to other threads
   */
  public FiringThread(TickLoop loop, Runnable onNewLead) {
    super("ax-ticker-fire", log, "Ticker firing loop", STEP_GRACE, STOP_WAIT);
    this.loop = loop;
    this.onNewLead = onNewLead;
  }

  @Override
  protected void step() throws InterruptedException {
    long waitMs = loop.step();
    long epoch = loop.ledEpoch();
    if (epoch != previousEpoch) {
      previousEpoch = epoch;
      if (epoch >= 0) {
        onNewLead.run();
      }
    }
    loop.await(waitMs);
  }
}
