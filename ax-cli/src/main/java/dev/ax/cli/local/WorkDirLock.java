package dev.ax.cli.local;

import dev.ax.cli.command.CliFailure;
import dev.ax.cli.command.ExitCodes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a work directory ({@code lock} file, OS file lock), so that two {@code ax
 * up} never start servers on the same data. The lock file holds the owner's pid for the message the
 * second one prints. Released by {@link #close()} or when the process dies. Used by one thread.
 */
public final class WorkDirLock implements AutoCloseable {

  private static final String FILE_NAME = "lock";

  /** Holds the lock: closing it releases the lock as well. */
  private final FileChannel channel;

  private WorkDirLock(FileChannel channel) {
    this.channel = channel;
  }

  /**
   * Creates {@code workDir} if needed and locks it.
   *
   * @throws CliFailure if another process holds the lock
   */
  public static WorkDirLock acquire(Path workDir) {
    Path file = workDir.resolve(FILE_NAME);
    try {
      Files.createDirectories(workDir);
      FileChannel channel =
          FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      if (channel.tryLock() == null) {
        channel.close();
        throw new CliFailure(
            ExitCodes.FAILED,
            "another `ax up` is running on "
                + workDir.toAbsolutePath()
                + " (pid "
                + readPid(file)
                + "); stop it first or use --work-dir");
      }
      channel.truncate(0);
      channel.write(
          ByteBuffer.wrap(
              (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)));
      return new WorkDirLock(channel);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock the work directory " + workDir, e);
    }
  }

  private static String readPid(Path file) {
    try {
      String pid = Files.readString(file, StandardCharsets.US_ASCII).trim();
      return pid.isEmpty() ? "unknown" : pid;
    } catch (IOException e) {
      return "unknown";
    }
  }

  @Override
  public void close() {
    try {
      channel.close(); // releases the lock
    } catch (IOException e) {
      throw new UncheckedIOException("cannot release the work directory lock", e);
    }
  }
}
