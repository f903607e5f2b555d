package dev.ax.dispatcher.run;

import dev.ax.common.thread.DaemonThreads;
import java.time.Duration;
import java.util.function.Function;

/**
 * A part that owns one thread, whose {@link #loop} runs while the part {@link #running() runs}:
 * {@link #startLoop} starts it once; {@link #close()} asks it to end and waits for it, at most the
 * part's stop wait, which is what a loop that finishes its work before it ends has to do so.
 *
 * <p>Thread-safety: {@link #running()} and {@link #close()} from any thread; close is idempotent.
 */
abstract class LoopingPart implements AutoCloseable {

  private final Thread thread;
  private final Duration stopWait;
  private volatile boolean running = true;

  /**
   * @param threads builds the part's thread (its name, whether it is a daemon) over a body
   */
  LoopingPart(Function<Runnable, Thread> threads, Duration stopWait) {
    this.thread = threads.apply(this::loop);
    this.stopWait = stopWait;
  }

  /** The thread's body: it ends once {@link #running()} is false. */
  abstract void loop();

  final void startLoop() {
    thread.start();
  }

  /** False once {@link #close()} was called. */
  final boolean running() {
    return running;
  }

  @Override
  public void close() {
    running = false;
    DaemonThreads.awaitEnd(thread, stopWait);
  }
}
