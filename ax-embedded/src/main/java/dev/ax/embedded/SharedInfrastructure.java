package dev.ax.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka broker and MySQL-protocol server shared by everything in this JVM (typically all tests
 * of a module): started once, lazily, on the first {@link #get()}, and stopped by a JVM shutdown
 * hook, which also deletes their temporary directory.
 *
 * <p>Each server can be replaced by an external one:
 *
 * <ul>
 *   <li>{@value #KAFKA_BOOTSTRAP} set: that broker is used instead of starting one;
 *   <li>{@value #JDBC_URL} set (a server-level {@code jdbc:mysql://host:port/} URL): that server is
 *       used, as {@value #JDBC_USER} with password {@value #JDBC_PASSWORD} (empty if unset),
 *       instead of starting MariaDB.
 * </ul>
 *
 * Each is read from the system property of that name, or else from the environment variable.
 *
 * <p>Thread-safe.
 */
public final class SharedInfrastructure {

  /** Bootstrap servers of an external broker to use instead of an embedded one. */
  public static final String KAFKA_BOOTSTRAP = "AX_KAFKA_BOOTSTRAP";

  /** Server-level {@code jdbc:mysql://} URL of an external server to use instead of MariaDB. */
  public static final String JDBC_URL = "AX_JDBC_URL";

  /** User for {@value #JDBC_URL}; required when it is set. */
  public static final String JDBC_USER = "AX_JDBC_USER";

  /** Password for {@value #JDBC_URL}; empty when unset. */
  public static final String JDBC_PASSWORD = "AX_JDBC_PASSWORD";

  private static final Logger log = LoggerFactory.getLogger(SharedInfrastructure.class);

  private static final Duration TOPIC_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration ADMIN_CLOSE_TIMEOUT = Duration.ofSeconds(5);

  private static SharedInfrastructure instance;
  private static RuntimeException startFailure;

  private final String bootstrapServers;
  private final DatabaseServer databaseServer;
  private final Admin admin;
  private final KafkaTopics topics;

  private SharedInfrastructure(String bootstrapServers, DatabaseServer databaseServer) {
    this.bootstrapServers = bootstrapServers;
    this.databaseServer = databaseServer;
    this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    this.topics = new KafkaTopics(admin, TOPIC_TIMEOUT);
  }

  /**
   * The shared servers, started on the first call (which blocks meanwhile, 3 to 5 s).
   *
   * @throws IllegalStateException if they could not be started, on this or an earlier call
   */
  public static synchronized SharedInfrastructure get() {
    if (instance != null) {
      return instance;
    }
    if (startFailure != null) {
      throw new IllegalStateException(
          "shared infrastructure failed to start earlier", startFailure);
    }
    try {
      instance = start();
      return instance;
    } catch (RuntimeException e) {
      startFailure = e;
      throw e;
    }
  }

  private static SharedInfrastructure start() {
    long startNanos = System.nanoTime();
    Optional<String> externalKafka = Settings.lookup(KAFKA_BOOTSTRAP);
    Optional<DatabaseServer> externalDatabase = externalDatabase();
    Path tempDir =
        externalKafka.isPresent() && externalDatabase.isPresent() ? null : createTempDir();

    ParallelStart.Both<EmbeddedKafka, EmbeddedDatabase> started;
    try {
      started =
          ParallelStart.start(
              "kafka",
              () ->
                  externalKafka.isPresent() ? null : EmbeddedKafka.start(tempDir.resolve("kafka")),
              () ->
                  externalDatabase.isPresent()
                      ? null
                      : EmbeddedDatabase.start(tempDir.resolve("mariadb")));
    } catch (RuntimeException e) {
      deleteIfPresent(tempDir);
      throw e;
    }
    EmbeddedKafka kafka = started.first();
    EmbeddedDatabase database = started.second();

    SharedInfrastructure infrastructure;
    try {
      infrastructure =
          new SharedInfrastructure(
              kafka != null ? kafka.bootstrapServers() : externalKafka.get(),
              database != null ? DatabaseServer.of(database) : externalDatabase.get());
    } catch (RuntimeException e) {
      stop(kafka, database, tempDir);
      throw e;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> infrastructure.shutdown(kafka, database, tempDir),
                "ax-shared-infrastructure-shutdown"));
    log.info(
        "Shared infrastructure ready in {} ms: Kafka {} ({}), database {} ({})",
        Duration.ofNanos(System.nanoTime() - startNanos).toMillis(),
        infrastructure.bootstrapServers,
        kafka != null ? "embedded" : "external",
        infrastructure.databaseServer.serverJdbcUrl(),
        database != null ? "embedded" : "external");
    return infrastructure;
  }

  private static Optional<DatabaseServer> externalDatabase() {
    return Settings.lookup(JDBC_URL)
        .map(
            url ->
                new DatabaseServer(
                    url,
                    Settings.require(JDBC_USER, JDBC_URL),
                    Settings.lookupOrEmpty(JDBC_PASSWORD)));
  }

  /** Bootstrap servers of the shared broker. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /**
   * {@code CREATE DATABASE IF NOT EXISTS `name`} on the shared server and returns its coordinates.
   *
   * @throws IllegalArgumentException if {@code name} does not match {@code [a-z0-9_]{1,64}}
   * @throws IllegalStateException if the server refuses
   */
  public DatabaseCoordinates createDatabase(String name) {
    return databaseServer.createDatabase(name);
  }

  /**
   * Creates the topics that do not exist yet and waits until all are visible with a leader for
   * every partition.
   *
   * @param partitionsByTopic partition count (at least 1) of each topic
   * @throws IllegalArgumentException if a partition count is below 1
   * @throws IllegalStateException if the broker refuses or the topics are not ready within 30 s
   */
  public void createTopics(Map<String, Integer> partitionsByTopic) {
    topics.create(partitionsByTopic);
  }

  private void shutdown(EmbeddedKafka kafka, EmbeddedDatabase database, Path tempDir) {
    try {
      admin.close(ADMIN_CLOSE_TIMEOUT);
    } finally {
      stop(kafka, database, tempDir);
    }
  }

  /** Stops what was started here (either may be null), database last, then deletes the dir. */
  private static void stop(EmbeddedKafka kafka, EmbeddedDatabase database, Path tempDir) {
    try {
      if (kafka != null) {
        kafka.close();
      }
    } finally {
      try {
        if (database != null) {
          database.close();
        }
      } finally {
        deleteIfPresent(tempDir);
      }
    }
  }

  private static void deleteIfPresent(Path dir) {
    if (dir != null) {
      Directories.deleteRecursively(dir);
    }
  }

  private static Path createTempDir() {
    try {
      return Files.createTempDirectory("ax-infra-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory for the servers", e);
    }
  }

  @Override
  public String toString() {
    return "SharedInfrastructure[kafka=" + bootstrapServers + ", " + databaseServer + "]";
  }
}
