package dev.ax.cli.local;

import dev.ax.embedded.Directories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Temporary work directories for runs that keep nothing ({@code ax demo}, {@code ax bench}): the
 * embedded servers unpack a few hundred MB there, so they are deleted afterwards. Stateless.
 */
public final class TempDirs {

  private static final Logger log = LoggerFactory.getLogger(TempDirs.class);

  private TempDirs() {}

  public static Path create(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory", e);
    }
  }

  /**
   * Deletes {@code dir} and everything in it; logs (never throws) what it cannot delete, through
   * the CLI's logger, which {@code ax demo} and {@code ax bench} keep showing.
   */
  public static void deleteQuietly(Path dir) {
    try {
      Directories.delete(dir);
    } catch (IOException e) {
      log.warn("Cannot delete {} completely: {}", dir, e.toString());
    }
  }
}
