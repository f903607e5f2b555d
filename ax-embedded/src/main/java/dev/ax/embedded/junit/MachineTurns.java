package dev.ax.embedded.junit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestPlan;

/**
 * Turns on the build machine for the test JVMs of one build, so that {@link WallClock} bounds hold
 * while Maven builds modules in parallel ({@code -T}): while a JVM runs tests it holds a file lock
 * on the machine, shared by ordinary test JVMs and exclusive for the wall-clock execution's JVM.
 * Registered through {@code META-INF/services}; the build names the mode and the file in the system
 * properties {@value #MODE_PROPERTY} ({@code shared} or {@code exclusive}) and {@value
 * #FILE_PROPERTY}. Without them (a test run from an IDE) it does nothing.
 *
 * <p>A waiting exclusive turn goes first: it takes the entry byte of the file before it waits for
 * the machine byte, and shared turns pass through the entry byte before they take theirs, so a
 * stream of ordinary test JVMs from other modules cannot keep a wall-clock execution waiting. The
 * locks are the operating system's (fcntl), so a JVM that dies releases its turn.
 *
 * <p>Thread-safety: JUnit calls the two methods from one thread per test plan, one plan at a time.
 */
public final class MachineTurns implements TestExecutionListener {

  /** {@code shared} or {@code exclusive}. */
  public static final String MODE_PROPERTY = "ax.test.machine";

  /** The lock file every test JVM of the build uses. */
  public static final String FILE_PROPERTY = "ax.test.machine.lock";

  /** A wait longer than this is printed, so that a slow module shows why. */
  private static final Duration REPORTED_WAIT = Duration.ofSeconds(1);

  private static final long ENTRY_BYTE = 0;
  private static final long MACHINE_BYTE = 1;

  private Turn turn;

  @Override
  public void testPlanExecutionStarted(TestPlan testPlan) {
    String mode = System.getProperty(MODE_PROPERTY);
    String file = System.getProperty(FILE_PROPERTY);
    if (mode == null || mode.isBlank() || file == null || file.isBlank()) {
      return;
    }
    boolean exclusive =
        switch (mode) {
          case "exclusive" -> true;
          case "shared" -> false;
          default ->
              throw new IllegalArgumentException(
                  MODE_PROPERTY + " must be shared or exclusive, not " + mode);
        };
    long startNanos = System.nanoTime();
    turn = take(Path.of(file), exclusive);
    Duration waited = Duration.ofNanos(System.nanoTime() - startNanos);
    if (waited.compareTo(REPORTED_WAIT) > 0) {
      System.out.printf(
          "[ax-tests] waited %d s for a turn on the machine (%s)%n", waited.toSeconds(), mode);
    }
  }

  @Override
  public void testPlanExecutionFinished(TestPlan testPlan) {
    if (turn != null) {
      turn.close();
      turn = null;
    }
  }

  /**
   * Waits for a turn on the machine {@code file} stands for and returns it.
   *
   * @throws UncheckedIOException if the file cannot be created or locked
   */
  static Turn take(Path file, boolean exclusive) {
    FileChannel channel = null;
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      channel =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileLock entry = channel.lock(ENTRY_BYTE, 1, false);
      channel.lock(MACHINE_BYTE, 1, !exclusive);
      if (!exclusive) {
        entry.release(); // an exclusive turn keeps it, so that later turns queue behind it
      }
      return new Turn(channel);
    } catch (IOException e) {
      if (channel != null) {
        try {
          channel.close(); // releases whatever it locked
        } catch (IOException closing) {
          e.addSuppressed(closing);
        }
      }
      throw new UncheckedIOException("taking a turn on " + file, e);
    }
  }

  /** A turn held: closing its channel releases every lock taken through it. Not thread-safe. */
  record Turn(FileChannel channel) implements AutoCloseable {

    @Override
    public void close() {
      try {
        channel.close();
      } catch (IOException e) {
        throw new UncheckedIOException("releasing a turn on the machine", e);
      }
    }
  }
}
