package dev.ax.embedded;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedded Kafka broker and MariaDB server for a laptop run, both keeping their data in one work
 * directory ({@code kafka/} and {@code mariadb/}), so that a later stack started on the same
 * directory finds the topics and databases of an earlier one.
 *
 * <p>Thread-safe: the accessors may be called from any thread, {@link #close()} is idempotent.
 */
public final class EmbeddedStack implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedStack.class);

  private final EmbeddedKafka kafka;
  private final EmbeddedDatabase database;
  private final DatabaseServer databaseServer;
  private final AtomicBoolean closed = new AtomicBoolean();

  private EmbeddedStack(EmbeddedKafka kafka, EmbeddedDatabase database) {
    this.kafka = kafka;
    this.database = database;
    this.databaseServer = DatabaseServer.of(database);
  }

  /**
   * Starts Kafka (in {@code workDir/kafka}) and MariaDB (in {@code workDir/mariadb}) in parallel
   * and returns once both are ready.
   *
   * @throws IllegalStateException if either fails to start; the other one is stopped again
   */
  public static EmbeddedStack start(Path workDir) {
    Path dir = workDir.toAbsolutePath();
    long startNanos = System.nanoTime();
    ParallelStart.Both<EmbeddedKafka, EmbeddedDatabase> started =
        ParallelStart.start(
            "kafka",
            () -> EmbeddedKafka.start(dir.resolve("kafka")),
            () -> EmbeddedDatabase.start(dir.resolve("mariadb")));
    EmbeddedStack stack = new EmbeddedStack(started.first(), started.second());
    log.info(
        "Embedded stack in {} ready in {} ms: Kafka {}, database {}",
        dir,
        Duration.ofNanos(System.nanoTime() - startNanos).toMillis(),
        stack.bootstrapServers(),
        stack.database.serverJdbcUrl());
    return stack;
  }

  /** Bootstrap servers of the embedded broker. */
  public String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  /**
   * {@code CREATE DATABASE IF NOT EXISTS `name`} and returns its coordinates.
   *
   * @throws IllegalArgumentException if {@code name} does not match {@code [a-z0-9_]{1,64}}
   * @throws IllegalStateException if the server refuses
   */
  public DatabaseCoordinates createDatabase(String name) {
    return databaseServer.createDatabase(name);
  }

  /** Stops Kafka, then the database. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      kafka.close();
    } finally {
      database.close();
    }
  }

  @Override
  public String toString() {
    return "EmbeddedStack[kafka=" + kafka + ", database=" + database + "]";
  }
}
