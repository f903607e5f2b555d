package dev.ax.dispatcher.claim;

import dev.ax.dispatcher.store.ClaimedInstance;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where won claims pass to the pools, and where a stop that gave up on the claim loop cuts them
 * off: once {@link #close()} has returned, nothing passes any more, and a hand-over that was under
 * way when it was called has ended. Claims cut off that way stay RUNNING until their lease expires,
 * as after a crash, because the pools they were meant for may already be shut.
 *
 * <p>A start that throws is logged, not thrown: the rows stay RUNNING until their lease expires and
 * the reaper hands them back (claiming them again would win nothing now).
 *
 * <p>Thread-safety: one lock, taken by the claim loop's thread for each hand-over (which may read
 * task specs, boundedly) and by whoever stops the loop. No consumer thread ever takes it.
 */
final class StartGate implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(StartGate.class);

  private final DispatcherPort port;

  /** Guarded by this: set once by {@link #close()}. */
  private boolean closed;

  StartGate(DispatcherPort port) {
    this.port = port;
  }

  /** Hands {@code won} to the pools ({@link DispatcherPort#start}) unless the gate is closed. */
  synchronized void pass(
      List<ClaimedInstance> won, Map<String, String> poolOfInstance, Future<?> prefetch) {
    if (won.isEmpty()) {
      return;
    }
    if (closed) {
      log.warn(
          "Stopped: {} instance(s) claimed after the stop wait and not started; the reaper"
              + " recovers them after their lease",
          won.size());
      return;
    }
    try {
      port.start(won, poolOfInstance, prefetch);
    } catch (RuntimeException e) {
      log.error(
          "{} claimed instance(s) could not be started; the reaper recovers them after their lease",
          won.size(),
          e);
    }
  }

  /** Closes the gate after any hand-over under way. Idempotent. */
  @Override
  public synchronized void close() {
    closed = true;
  }
}
