package dev.ax.common.stage;

import com.zaxxer.hikari.HikariDataSource;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.config.ConfigException;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.kafka.TopicProvisioner;
import dev.ax.common.kafka.Topics;
import dev.ax.common.store.Database;
import dev.ax.common.store.DatabaseTls;
import dev.ax.common.store.ServerSettings;
import dev.ax.common.time.DatabaseClock;
import dev.ax.common.time.SystemClock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared parts of a running process, built from its configuration: the database pool (with
 * migrations applied) and its small control pool, the database clock, the topics (created when
 * missing), the metrics registry and its endpoint. One per process; {@link #close()} releases them
 * in reverse order. A stage on Kafka alone opens no database ({@link #openWithoutDatabase}).
 */
public final class StageRuntime implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(StageRuntime.class);

  /**
   * The readiness check that names every consumer loop refused by the broker or dead ({@link
   * LoopHealth}).
   */
  public static final String CONSUMER_LOOPS_CHECK = "consumer loops";

  /** How often the readiness checks (database, broker, the stage's own) run. */
  public static final Duration READINESS_INTERVAL = Duration.ofSeconds(2);

  private final OpenedResources resources;
  private final StageContext context;
  private final Readiness readiness;
  private final LoopHealth loops;

  private StageRuntime(
      OpenedResources resources, StageContext context, Readiness readiness, LoopHealth loops) {
    this.resources = resources;
    this.context = context;
    this.readiness = readiness;
    this.loops = loops;
  }

  /**
   * @throws ConfigException when Kafka or the database is not configured
   */
  public static StageRuntime open(CommonConfig config, String processName) {
    return open(config, processName, true);
  }

  /**
   * For a stage that uses Kafka alone (the resolver): no database is required, opened or checked,
   * so the stage needs no database credentials and starts without the pool, the schema check and
   * the clock's anchoring. Its context's data sources refuse every use ({@link NoDatabase}) and its
   * clock is the system clock.
   *
   * @throws ConfigException when Kafka is not configured
   */
  public static StageRuntime openWithoutDatabase(CommonConfig config, String processName) {
    return open(config, processName, false);
  }

  private static StageRuntime open(CommonConfig config, String processName, boolean usesDatabase) {
    requireConnectionKeys(config, usesDatabase);
    String jdbcUrl = config.jdbcUrl();
    KafkaConnection kafka =
        new KafkaConnection(config.kafkaBootstrap(), config.kafkaClientProperties());
    String nodeId = config.nodeId().isBlank() ? NodeIds.defaultNodeId() : config.nodeId();
    PrometheusMeterRegistry meters = processMeters(nodeId);
    String bind = config.metricsBind();
    // Whatever is opened before a failure is closed again, in reverse order, by one path.
    OpenedResources opened = new OpenedResources();
    try {
      Readiness readiness = opened.add(new Readiness(READINESS_INTERVAL, System::nanoTime));
      // First: a metrics port in use stops the stage (exit 2) before it connects to anything.
      if (!bind.equalsIgnoreCase("off")) {
        opened.add(MetricsEndpoint.start(bind, meters, readiness));
      }
      // The topics are checked (and created) while the database is opened: two round trips to
      // different servers, in parallel, on every start.
      Topics topics = new Topics(config.topicPrefix());
      CompletableFuture<Void> topicsReady =
          CompletableFuture.runAsync(
              () ->
                  TopicProvisioner.ensure(
                      kafka,
                      topics.all(config.topicPartitions()),
                      (short) config.topicReplication()));
      readiness.add("broker", brokerCheck(opened.add(KafkaClients.admin(kafka))));
      LoopHealth loops = new LoopHealth();
      readiness.add(CONSUMER_LOOPS_CHECK, loops);
      if (!usesDatabase) {
        awaitTopics(topicsReady);
        NoDatabase none = new NoDatabase(processName);
        StageContext context =
            new StageContext(
                config, kafka, topics, none, none, new SystemClock(), nodeId, meters, loops);
        return new StageRuntime(opened, context, readiness, loops);
      }
      HikariDataSource dataSource =
          opened.add(
              Database.open(
                  jdbcUrl,
                  config.jdbcUser(),
                  config.jdbcPassword(),
                  Database.Pool.of(config.dbPoolSize(), processName)
                      .withTls(DatabaseTls.of(config))));
      HikariDataSource controlDataSource =
          opened.add(
              Database.openControl(
                  jdbcUrl,
                  config.jdbcUser(),
                  config.jdbcPassword(),
                  processName + "-control",
                  DatabaseTls.of(config)));
      if (config.dbMigrate()) {
        Database.migrate(dataSource);
      } else {
        Database.requireCurrent(dataSource);
      }
      DatabaseClock clock =
          opened.add(
              DatabaseClock.start(
                  controlDataSource, config.dbClockReanchor(), config.clockSkewThreshold()));
      ProcessMeters.bindPool(meters, dataSource, "work");
      ProcessMeters.bindPool(meters, controlDataSource, "control");
      ProcessMeters.bindClock(meters, clock);
      log.info("Database clock anchored; local clock is {} ms ahead of it", clock.localSkewMs());
      ServerSettings.advice(dataSource).ifPresent(advice -> log.warn("{}", advice));
      awaitTopics(topicsReady);
      StageContext context =
          new StageContext(
              config, kafka, topics, dataSource, controlDataSource, clock, nodeId, meters, loops);
      readiness.add("database", databaseCheck(controlDataSource));
      return new StageRuntime(opened, context, readiness, loops);
    } catch (RuntimeException e) {
      opened.close();
      throw e;
    }
  }

  /**
   * Checks the keys a stage cannot connect without, before anything is opened.
   *
   * @throws ConfigException naming the missing or malformed key
   */
  private static void requireConnectionKeys(CommonConfig config, boolean usesDatabase) {
    String bootstrap = config.kafkaBootstrap();
    String jdbcUrl = config.jdbcUrl();
    if (bootstrap == null || bootstrap.isBlank()) {
      throw new ConfigException(
          "missing required configuration key AX_KAFKA_BOOTSTRAP (host:port of the Kafka brokers)");
    }
    if (usesDatabase) {
      if (jdbcUrl == null || jdbcUrl.isBlank()) {
        throw new ConfigException(
            "missing required configuration key AX_JDBC_URL (jdbc:mysql://host:port/database)");
      }
      if (!jdbcUrl.startsWith("jdbc:mysql:")) {
        throw new ConfigException(
            "bad configuration value AX_JDBC_URL=" + jdbcUrl + ": must start with jdbc:mysql:");
      }
    }
  }

  /** The process's meter registry: every meter tagged with the node, the JVM's meters bound. */
  private static PrometheusMeterRegistry processMeters(String nodeId) {
    PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    meters.config().commonTags("node", nodeId);
    ProcessMeters.bindJvm(meters);
    return meters;
  }

  private static void awaitTopics(CompletableFuture<Void> topicsReady) {
    try {
      topicsReady.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  /** The broker answers a cluster description within the readiness timeout. */
  private static Readiness.Check brokerCheck(Admin admin) {
    return () -> {
      try {
        return admin
                .describeCluster()
                .nodes()
                .get(CHECK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .isEmpty()
            ? Optional.of("the cluster reports no broker")
            : Optional.empty();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.of("interrupted");
      } catch (ExecutionException | TimeoutException e) {
        return Optional.of("broker unreachable: " + e);
      }
    };
  }

  /** A connection of the control pool (short timeouts) is valid. */
  private static Readiness.Check databaseCheck(DataSource control) {
    return () -> {
      try (Connection connection = control.getConnection()) {
        return connection.isValid((int) CHECK_TIMEOUT.toSeconds())
            ? Optional.empty()
            : Optional.of("database connection not valid");
      } catch (SQLException e) {
        return Optional.of("database unreachable: " + e.getMessage());
      }
    };
  }

  private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(2);

  public StageContext context() {
    return context;
  }

  /**
   * The process's readiness: database and broker checked already; a stage adds its own checks, and
   * whoever starts the stages {@link Readiness#start starts} it once they run (until then the
   * process is not ready: it is starting).
   */
  public Readiness readiness() {
    return readiness;
  }

  /**
   * The consumer loops of the context's stages, as one readiness check: a loop's death makes the
   * process not ready; whoever runs the process decides what else it does ({@link
   * LoopHealth#onDeath}; a stage's {@code Main} exits).
   */
  public LoopHealth loops() {
    return loops;
  }

  /** Closes the clock, the pools and the metrics endpoint, in the reverse order of opening. */
  @Override
  public void close() {
    resources.close();
  }
}
