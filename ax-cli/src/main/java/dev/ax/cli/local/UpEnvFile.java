package dev.ax.cli.local;

import dev.ax.common.config.CommonKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@code up.env} in the work directory: where a running {@code ax up} can be reached, as lines
 * {@code AX_KAFKA_BOOTSTRAP=host:port} and {@code AX_TOPIC_PREFIX=prefix}, and for an embedded
 * database {@code AX_JDBC_URL} and {@code AX_JDBC_USER} (never a password, never an external
 * database's URL, which may carry one), so that {@code ax submit}, {@code ax dlq} and {@code ax
 * switch} find AX without configuration. Written when {@code ax up} is ready (atomically, so a
 * reader never sees half a file), deleted when it stops. Stateless.
 */
public final class UpEnvFile {

  public static final String FILE_NAME = "up.env";

  /** What the file says. */
  public record Contents(
      String bootstrapServers, String topicPrefix, String jdbcUrl, String jdbcUser) {

    /** Without a database: commands that need one ask for AX_JDBC_URL. */
    public Contents(String bootstrapServers, String topicPrefix) {
      this(bootstrapServers, topicPrefix, "", "");
    }
  }

  private UpEnvFile() {}

  public static Path path(Path workDir) {
    return workDir.resolve(FILE_NAME);
  }

  public static void write(Path workDir, Contents contents) {
    Path file = path(workDir);
    String text =
        "# written by `ax up` (pid "
            + ProcessHandle.current().pid()
            + ") at "
            + Instant.now()
            + "; removed when it stops\n"
            + CommonKeys.KAFKA_BOOTSTRAP.name()
            + "="
            + contents.bootstrapServers()
            + "\n"
            + CommonKeys.TOPIC_PREFIX.name()
            + "="
            + contents.topicPrefix()
            + "\n"
            + (contents.jdbcUrl().isEmpty()
                ? ""
                : CommonKeys.JDBC_URL.name()
                    + "="
                    + contents.jdbcUrl()
                    + "\n"
                    + CommonKeys.JDBC_USER.name()
                    + "="
                    + contents.jdbcUser()
                    + "\n");
    try {
      Files.createDirectories(workDir);
      Path tmp = Files.createTempFile(workDir, FILE_NAME, ".tmp");
      Files.writeString(tmp, text, StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** The file's contents; empty when there is no file (no {@code ax up} running there). */
  public static Optional<Contents> read(Path workDir) {
    Path file = path(workDir);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      String trimmed = line.trim();
      int eq = trimmed.indexOf('=');
      if (trimmed.isEmpty() || trimmed.startsWith("#") || eq < 0) {
        continue;
      }
      values.put(trimmed.substring(0, eq).trim(), trimmed.substring(eq + 1).trim());
    }
    String bootstrap = values.getOrDefault(CommonKeys.KAFKA_BOOTSTRAP.name(), "");
    if (bootstrap.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new Contents(
            bootstrap,
            values.getOrDefault(CommonKeys.TOPIC_PREFIX.name(), ""),
            values.getOrDefault(CommonKeys.JDBC_URL.name(), ""),
            values.getOrDefault(CommonKeys.JDBC_USER.name(), "")));
  }

  public static void delete(Path workDir) {
    try {
      Files.deleteIfExists(path(workDir));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + path(workDir), e);
    }
  }
}
