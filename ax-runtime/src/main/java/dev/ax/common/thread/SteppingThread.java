package dev.ax.common.thread;

import java.time.Duration;
import org.slf4j.Logger;

/**
 * The owner thread of a stage's loop: it calls {@link #step()} (which also waits as long as the
 * loop asks) until {@link #close()}. An unexpected error in a step is logged and the stepping goes
 * on; an interrupt ends the thread. Subclasses give the step.
 *
 * <p>Thread-safety: {@link #start()} and {@link #close()} are called by the stage's owner; {@link
 * #step()} runs on this thread alone, so the loop it steps needs no lock for what only it touches.
 */
public abstract class SteppingThread implements AutoCloseable {

  private final Thread owner;
  private final Logger log;
  private final String loopName;
  private final Duration stepGrace;
  private final Duration stopWait;
  private volatile boolean stopping;

  /**
   * @param threadName the thread's name
   * @param log where an unexpected error in a step is logged (the subclass's own logger)
   * @param loopName names the loop in that log line
   * @param stepGrace how long {@link #close()} lets a step under way end by itself before it
   *     interrupts the thread; zero interrupts it at once
   * @param stopWait how long {@link #close()} then waits for the interrupted thread to end
   */
  protected SteppingThread(
      String threadName, Logger log, String loopName, Duration stepGrace, Duration stopWait) {
    this.owner = new Thread(this::run, threadName);
    this.log = log;
    this.loopName = loopName;
    this.stepGrace = stepGrace;
    this.stopWait = stopWait;
  }

  /** One step of the loop, with the wait it asks for after it; runs on this thread only. */
  protected abstract void step() throws InterruptedException;

  public final void start() {
    owner.start();
  }

  private void run() {
    while (!stopping) {
      try {
        step();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        log.error("{} caught an unexpected error; continuing", loopName, e);
      }
    }
  }

  /**
   * Ends the thread after the step under way: interrupted only if that step is still going after
   * the step grace, then waited for up to the stop wait. Idempotent.
   */
  @Override
  public final void close() {
    stopping = true;
    if (stepGrace.compareTo(Duration.ZERO) > 0) {
      DaemonThreads.awaitEnd(owner, stepGrace);
    }
    if (owner.isAlive()) {
      owner.interrupt();
      DaemonThreads.awaitEnd(owner, stopWait);
    }
  }
}
