package dev.ax.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
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
 * <p>With the system property {@value #TESTCONTAINERS} {@code true}, a server that is not given
 * runs in a Docker container (Testcontainers: {@code apache/kafka} and MySQL 8, as compose runs
 * them) instead of in or beside this JVM. Where no Docker engine is reachable then, {@link
 * #skipReason()} says so, {@link dev.ax.embedded.junit.AxInfraExtension} skips every test class
 * with that reason and {@link #get()} fails with it.
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

  /**
   * System property: {@code true} runs the servers not given above in Docker containers
   * (Testcontainers); unset or {@code false} embeds them.
   */
  public static final String TESTCONTAINERS = ServerChoice.TESTCONTAINERS;

  private static final Logger log = LoggerFactory.getLogger(SharedInfrastructure.class);

  private static final Duration TOPIC_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration ADMIN_CLOSE_TIMEOUT = Duration.ofSeconds(5);

  private static final Duration RELEASE_LOCK_WAIT = Duration.ofSeconds(5);
  private static final Duration RELEASE_TIMEOUT = Duration.ofSeconds(30);

  /** One daemon thread releases what tests made, in order, off the tests' own threads. */
  private static final ExecutorService CLEANUP =
      Executors.newSingleThreadExecutor(
          task -> {
            Thread thread = new Thread(task, "ax-test-release");
            thread.setDaemon(true);
            return thread;
          });

  private static SharedInfrastructure instance;
  private static RuntimeException startFailure;
  private static Optional<String> skipReason;

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
   * The shared servers, started on the first call (which blocks meanwhile, 3 to 5 s; containers
   * take longer, and the first run pulls their images).
   *
   * @throws IllegalStateException if they could not be started, on this or an earlier call, or
   *     cannot be here ({@link #skipReason()})
   */
  public static synchronized SharedInfrastructure get() {
    if (instance != null) {
      return instance;
    }
    Optional<String> reason = skipReason();
    if (reason.isPresent()) {
      throw new IllegalStateException(reason.get());
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

  /**
   * Why tests on the shared servers cannot run in this JVM, or empty when they can: today only
   * {@value #TESTCONTAINERS}{@code =true} where no Docker engine is reachable (and a server is not
   * given as external). Decided on the first call, which then asks Docker, and logged once at WARN,
   * as one line; later calls return the same.
   *
   * @throws IllegalArgumentException if {@value #TESTCONTAINERS} is neither true nor false
   */
  public static synchronized Optional<String> skipReason() {
    if (skipReason == null) {
      // A lambda, not a method reference: Testcontainers' classes load only when Docker is asked.
      skipReason = choice().skipReason(() -> TestcontainersServers.dockerAvailable());
      skipReason.ifPresent(log::warn);
    }
    return skipReason;
  }

  private static ServerChoice choice() {
    return ServerChoice.of(
        System.getProperty(TESTCONTAINERS),
        Settings.lookup(KAFKA_BOOTSTRAP).isPresent(),
        Settings.lookup(JDBC_URL).isPresent());
  }

  private static SharedInfrastructure start() {
    long startNanos = System.nanoTime();
    ServerChoice choice = choice();
    if (choice.kafka() == ServerChoice.Source.EMBEDDED
        && choice.database() == ServerChoice.Source.EMBEDDED) {
      Optional<BuildServers.Coordinates> build = BuildServers.join();
      if (build.isPresent()) {
        SharedInfrastructure infrastructure =
            new SharedInfrastructure(build.get().bootstrapServers(), build.get().database());
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> infrastructure.admin.close(ADMIN_CLOSE_TIMEOUT),
                    "ax-shared-infrastructure-shutdown"));
        log.info(
            "Shared infrastructure ready in {} ms: the build's servers (pid {}), Kafka {},"
                + " database {}",
            Duration.ofNanos(System.nanoTime() - startNanos).toMillis(),
            build.get().pid(),
            infrastructure.bootstrapServers,
            infrastructure.databaseServer.serverJdbcUrl());
        return infrastructure;
      }
    }
    Optional<String> externalKafka = Settings.lookup(KAFKA_BOOTSTRAP);
    Optional<DatabaseServer> externalDatabase = externalDatabase();
    Path tempDir = choice.needsTempDir() ? createTempDir() : null;

    ParallelStart.Both<RunningServer<String>, RunningServer<DatabaseServer>> started;
    try {
      started =
          ParallelStart.start(
              "kafka",
              () ->
                  startServer(
                      choice.kafka(),
                      externalKafka,
                      () -> TestcontainersServers.startKafka(),
                      () -> embeddedKafka(tempDir)),
              () ->
                  startServer(
                      choice.database(),
                      externalDatabase,
                      () -> TestcontainersServers.startMysql(),
                      () -> embeddedDatabase(tempDir)));
    } catch (RuntimeException e) {
      deleteIfPresent(tempDir);
      throw e;
    }
    RunningServer<String> kafka = started.first();
    RunningServer<DatabaseServer> database = started.second();

    SharedInfrastructure infrastructure;
    try {
      infrastructure = new SharedInfrastructure(kafka.address(), database.address());
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
        kafka.origin(),
        infrastructure.databaseServer.serverJdbcUrl(),
        database.origin());
    return infrastructure;
  }

  /**
   * One server from where {@code source} says: the external one given, or one started in a
   * container or embedded. Lambdas, not method references, at the callers: Testcontainers' classes
   * load only when a container is asked for.
   */
  private static <A> RunningServer<A> startServer(
      ServerChoice.Source source,
      Optional<A> external,
      Supplier<RunningServer<A>> container,
      Supplier<RunningServer<A>> embedded) {
    return switch (source) {
      case EXTERNAL -> RunningServer.external(external.orElseThrow());
      case CONTAINER -> container.get();
      case EMBEDDED -> embedded.get();
    };
  }

  private static RunningServer<String> embeddedKafka(Path tempDir) {
    EmbeddedKafka kafka = EmbeddedKafka.start(tempDir.resolve("kafka"));
    return new RunningServer<>(kafka.bootstrapServers(), "embedded", kafka::close);
  }

  private static RunningServer<DatabaseServer> embeddedDatabase(Path tempDir) {
    EmbeddedDatabase database = EmbeddedDatabase.start(tempDir.resolve("mariadb"));
    return new RunningServer<>(DatabaseServer.of(database), "embedded", database::close);
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

  /**
   * Deletes, in the background, the topics whose names start with {@code topicPrefix} and the
   * database {@code database} points at: what one test made, once it is over. The servers outlive
   * the test (and, as the build's servers, the JVM): a broker keeping every test's partitions would
   * run out of file handles. A failure is logged and left alone.
   */
  public void release(String topicPrefix, DatabaseCoordinates database) {
    String databaseName = JdbcUrls.databaseOf(database.jdbcUrl());
    CLEANUP.execute(
        () -> {
          try {
            Set<String> names =
                admin.listTopics().names().get(RELEASE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            List<String> mine =
                names.stream().filter(name -> name.startsWith(topicPrefix)).toList();
            if (!mine.isEmpty()) {
              admin.deleteTopics(mine).all().get(RELEASE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
            databaseServer.dropDatabase(databaseName, RELEASE_LOCK_WAIT);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } catch (Exception e) {
            log.info("Could not release {}* and {}: {}", topicPrefix, databaseName, e.toString());
          }
        });
  }

  private void shutdown(
      RunningServer<String> kafka, RunningServer<DatabaseServer> database, Path tempDir) {
    try {
      admin.close(ADMIN_CLOSE_TIMEOUT);
    } finally {
      stop(kafka, database, tempDir);
    }
  }

  /** Stops what was started here, database last, then deletes the directory (if any). */
  private static void stop(
      RunningServer<String> kafka, RunningServer<DatabaseServer> database, Path tempDir) {
    try {
      kafka.close();
    } finally {
      try {
        database.close();
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
