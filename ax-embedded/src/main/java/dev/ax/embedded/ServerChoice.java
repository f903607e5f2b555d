package dev.ax.embedded;

import java.util.Locale;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Where each of the tests' shared servers comes from: an external server when its setting names
 * one, else a Testcontainers container when {@value #TESTCONTAINERS} is {@code true}, else an
 * embedded server. Immutable; thread-safe.
 *
 * @param kafka the broker's source
 * @param database the MySQL-protocol server's source
 */
record ServerChoice(Source kafka, Source database) {

  /** The system property that puts the servers that are not external in Docker containers. */
  static final String TESTCONTAINERS = "ax.it.testcontainers";

  /** The one line said (and the reason every IT is skipped with) when Docker is needed but away. */
  static final String NO_DOCKER =
      TESTCONTAINERS + "=true but no Docker engine is reachable: ITs skipped";

  /** Where one server comes from. */
  enum Source {
    /** Given by its setting ({@code AX_KAFKA_BOOTSTRAP}, {@code AX_JDBC_URL}). */
    EXTERNAL,
    /** A Testcontainers container ({@link TestcontainersServers}). */
    CONTAINER,
    /** Started in or beside this JVM ({@link EmbeddedKafka}, {@link EmbeddedDatabase}). */
    EMBEDDED
  }

  /**
   * @param testcontainers the value of {@value #TESTCONTAINERS}, or null when unset
   * @param externalKafka whether an external broker is given
   * @param externalDatabase whether an external database server is given
   * @throws IllegalArgumentException if {@code testcontainers} is neither true nor false
   */
  static ServerChoice of(String testcontainers, boolean externalKafka, boolean externalDatabase) {
    Source otherwise = useContainers(testcontainers) ? Source.CONTAINER : Source.EMBEDDED;
    return new ServerChoice(
        externalKafka ? Source.EXTERNAL : otherwise,
        externalDatabase ? Source.EXTERNAL : otherwise);
  }

  /**
   * {@code true} or {@code false} in any case, surrounding blanks ignored; unset or blank is false.
   *
   * @throws IllegalArgumentException for anything else
   */
  static boolean useContainers(String value) {
    if (value == null || value.isBlank()) {
      return false;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new IllegalArgumentException(
              TESTCONTAINERS + " must be true or false, got '" + value + "'");
    };
  }

  /** Whether a server is to run in a container, which needs a Docker engine. */
  boolean needsDocker() {
    return kafka == Source.CONTAINER || database == Source.CONTAINER;
  }

  /** Whether a server is to be embedded, which needs a temporary directory. */
  boolean needsTempDir() {
    return kafka == Source.EMBEDDED || database == Source.EMBEDDED;
  }

  /**
   * Why the tests on these servers cannot run here ({@link #NO_DOCKER}), or empty when they can.
   * Asks {@code dockerAvailable} only when a container is needed.
   */
  Optional<String> skipReason(BooleanSupplier dockerAvailable) {
    return needsDocker() && !dockerAvailable.getAsBoolean()
        ? Optional.of(NO_DOCKER)
        : Optional.empty();
  }
}
