package dev.ax.embedded;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * File-tree helpers, for the embedded servers' directories here and for the laptop launcher's
 * temporary ones ({@code dev.ax.cli.local}). Thread-safe (stateless).
 */
public final class Directories {

  private static final Logger log = LoggerFactory.getLogger(Directories.class);

  private Directories() {}

  /**
   * Deletes {@code dir} and everything under it, if it exists; a file that disappears meanwhile
   * counts as deleted.
   *
   * @throws IOException on the first file or directory that cannot be deleted
   */
  public static void delete(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    Files.walkFileTree(
        dir,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.deleteIfExists(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
              return FileVisitResult.CONTINUE;
            }
            throw e;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path directory, IOException e)
              throws IOException {
            Files.deleteIfExists(directory);
            return FileVisitResult.CONTINUE;
          }
        });
  }

  /** Deletes {@code dir} and everything under it; logs (never throws) what it cannot delete. */
  static void deleteRecursively(Path dir) {
    try {
      delete(dir);
    } catch (IOException e) {
      log.warn("Cannot delete {} completely", dir, e);
    }
  }
}
