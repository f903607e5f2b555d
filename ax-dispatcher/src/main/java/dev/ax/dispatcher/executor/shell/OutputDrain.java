package dev.ax.dispatcher.executor.shell;

import dev.ax.common.thread.DaemonThreads;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Reads one output stream of a script to its end on a thread of its own, keeping a bounded part of
 * it. Reading never stops at the bound: bytes past it are counted and dropped, so a script that
 * writes gigabytes never blocks on a full pipe.
 *
 * <p>The thread ends when the stream ends, which happens once every process holding the write end
 * has exited: normally the script and its children. A process that left the script's tree (a daemon
 * that re-parented itself) can hold the pipe open for as long as it lives; the thread then lives as
 * long, blocked in a read no one can interrupt, and the executor stops waiting for it (see {@link
 * #awaitClosed}). The thread is a daemon, so it never holds up JVM exit.
 *
 * <p>Thread-safe.
 */
public final class OutputDrain {

  /** Which part of a long stream is kept. */
  public enum Keep {
    /** The first bytes: what a reader of stdout expects to see. */
    HEAD,
    /** The last bytes: where a failing script says why. */
    TAIL
  }

  private static final int CHUNK_BYTES = 8192;

  private final InputStream stream;
  private final OutputCapture capture;
  private final CountDownLatch closed = new CountDownLatch(1);

  private OutputDrain(InputStream stream, OutputCapture capture) {
    this.stream = stream;
    this.capture = capture;
  }

  /** Starts a daemon thread named {@code threadName} that reads {@code stream} to its end. */
  public static OutputDrain start(InputStream stream, Keep keep, int maxBytes, String threadName) {
    OutputDrain drain = new OutputDrain(stream, new OutputCapture(keep, maxBytes));
    Thread thread = DaemonThreads.thread(threadName, drain::drain);
    thread.start();
    return drain;
  }

  private void drain() {
    byte[] chunk = new byte[CHUNK_BYTES];
    try (InputStream in = stream) {
      int n;
      while ((n = in.read(chunk)) != -1) {
        capture.append(chunk, 0, n);
      }
    } catch (IOException e) {
      // The stream was closed under us: what was read so far is kept, and that is all there is.
    } finally {
      closed.countDown();
    }
  }

  /** True once the stream has ended and the thread is done with it. */
  public boolean isClosed() {
    return closed.getCount() == 0;
  }

  /**
   * Waits up to {@code timeout} for the stream to end.
   *
   * @return false if it is still open
   */
  public boolean awaitClosed(Duration timeout) throws InterruptedException {
    return closed.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** What was kept so far; final once {@link #isClosed()}. */
  public CapturedOutput captured() {
    return capture.snapshot();
  }
}
