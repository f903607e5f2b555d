package dev.ax.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Single-node KRaft broker (combined broker and controller) in this JVM, listening on loopback
 * only.
 *
 * <p>{@link #start} formats {@code dataDir} unless it already holds a formatted log directory, so a
 * broker can be restarted on the data of an earlier one. {@link #close} never deletes {@code
 * dataDir}.
 *
 * <p>Thread-safe: {@link #bootstrapServers()} may be called from any thread, {@link #close()} is
 * idempotent and may race with itself.
 */
public final class EmbeddedKafka implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);

  /** How long the broker may take to answer its first DescribeCluster. */
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  /** Registration session of a broker started on fixed ports, to be restarted after a kill. */
  private static final int RESTARTABLE_SESSION_TIMEOUT_MS = 3_000;

  /** Attempts at picking free ports, for when another process takes them before the broker. */
  private static final int START_ATTEMPTS = 3;

  private final KafkaRaftServer server;
  private final Path dataDir;
  private final String bootstrapServers;
  private final StopOnce stopOnce = new StopOnce();

  private EmbeddedKafka(KafkaRaftServer server, Path dataDir, int brokerPort) {
    this.server = server;
    this.dataDir = dataDir;
    this.bootstrapServers = "127.0.0.1:" + brokerPort;
  }

  /**
   * Formats {@code dataDir} (if it is not formatted yet), starts the broker and returns once an
   * admin client's DescribeCluster succeeds against it.
   *
   * @param dataDir the broker's log directory; created if missing
   * @throws IllegalStateException if the broker does not start or does not become ready within a
   *     minute
   */
  public static EmbeddedKafka start(Path dataDir) {
    return start(dataDir, () -> FreePorts.loopback(2), START_ATTEMPTS, Map.of());
  }

  /**
   * As {@link #start(Path)}, on fixed loopback ports and without retrying on other ones: for a test
   * that stops or kills a broker and starts it again on the same ports and data, so that clients
   * holding the old bootstrap address reconnect to the new one.
   *
   * <p>The broker's registration session is {@value #RESTARTABLE_SESSION_TIMEOUT_MS} ms instead of
   * Kafka's 9 s: a broker started again after a kill cannot register until the session of its
   * previous incarnation has expired, and this single node has no other broker to serve meanwhile.
   *
   * @param brokerPort the PLAINTEXT listener's port
   * @param controllerPort the KRaft controller listener's port
   * @throws IllegalStateException if the broker does not start (e.g. a port is taken) or does not
   *     become ready within a minute
   */
  public static EmbeddedKafka start(Path dataDir, int brokerPort, int controllerPort) {
    return start(
        dataDir,
        () -> List.of(brokerPort, controllerPort),
        1,
        Map.of(
            "broker.session.timeout.ms",
            String.valueOf(RESTARTABLE_SESSION_TIMEOUT_MS),
            "broker.heartbeat.interval.ms",
            String.valueOf(RESTARTABLE_SESSION_TIMEOUT_MS / 3)));
  }

  /**
   * Starts the broker on the ports {@code ports} gives (broker, controller), taking new ones for
   * another attempt while a port turns out taken (a bind failure) and attempts are left.
   */
  private static EmbeddedKafka start(
      Path dataDir, Supplier<List<Integer>> ports, int attempts, Map<String, String> overrides) {
    Path dir = dataDir.toAbsolutePath();
    createDirectories(dir);
    long startNanos = System.nanoTime();
    for (int attempt = 1; ; attempt++) {
      List<Integer> tried = ports.get();
      try {
        EmbeddedKafka kafka = startOnce(dir, tried.get(0), tried.get(1), overrides);
        log.info(
            "Embedded Kafka ready at {} (controller port {}, data {}) in {} ms",
            kafka.bootstrapServers,
            tried.get(1),
            dir,
            Duration.ofNanos(System.nanoTime() - startNanos).toMillis());
        return kafka;
      } catch (RuntimeException e) {
        if (attempt >= attempts || !causedByBindFailure(e)) {
          throw new IllegalStateException(
              "embedded Kafka failed to start in " + dir + " on ports " + tried, e);
        }
        log.warn("Ports {} were taken before the broker could bind them; retrying", tried);
      }
    }
  }

  /**
   * As {@link #start(Path)}, with a SASL/PLAIN and a TLS listener beside the PLAINTEXT one (on the
   * ports {@code listeners} names): for tests of clients' transport security.
   *
   * @throws IllegalStateException if the broker does not start or does not become ready
   */
  public static EmbeddedKafka startWithSecuredListeners(Path dataDir, SecuredListeners listeners) {
    Path dir = dataDir.toAbsolutePath();
    createDirectories(dir);
    List<Integer> ports = FreePorts.loopback(2);
    Map<String, String> overrides = new HashMap<>();
    listeners
        .brokerProperties(ports.get(0), ports.get(1))
        .forEach((k, v) -> overrides.put(k.toString(), v.toString()));
    try {
      EmbeddedKafka kafka = startOnce(dir, ports.get(0), ports.get(1), overrides);
      log.info(
          "Embedded Kafka ready at {}, SASL_PLAINTEXT at {}, SSL at {}",
          kafka.bootstrapServers,
          listeners.saslBootstrapServers(),
          listeners.sslBootstrapServers());
      return kafka;
    } catch (RuntimeException e) {
      throw new IllegalStateException("embedded Kafka with secured listeners failed to start", e);
    }
  }

  /**
   * As {@link #start(Path)}, with a SASL/PLAIN listener beside the PLAINTEXT one and KRaft's {@code
   * StandardAuthorizer} deciding every request by ACLs (see {@link AuthorizedSasl}): for tests of
   * Kafka ACLs. The PLAINTEXT listener stays the broker's own, as a super user.
   *
   * @throws IllegalStateException if the broker does not start or does not become ready
   */
  public static EmbeddedKafka startWithAuthorizer(Path dataDir, AuthorizedSasl sasl) {
    Path dir = dataDir.toAbsolutePath();
    createDirectories(dir);
    List<Integer> ports = FreePorts.loopback(2);
    Map<String, String> overrides = new HashMap<>();
    sasl.brokerProperties(ports.get(0), ports.get(1))
        .forEach((k, v) -> overrides.put(k.toString(), v.toString()));
    try {
      EmbeddedKafka kafka = startOnce(dir, ports.get(0), ports.get(1), overrides);
      log.info(
          "Embedded Kafka ready at {}, SASL_PLAINTEXT with ACLs at {} (super users {})",
          kafka.bootstrapServers,
          sasl.saslBootstrapServers(),
          sasl.superUsersSetting());
      return kafka;
    } catch (RuntimeException e) {
      throw new IllegalStateException("embedded Kafka with an authorizer failed to start", e);
    }
  }

  /** One attempt on the given ports; stops what it started if it fails. Visible for tests. */
  static EmbeddedKafka startOnce(Path dir, int brokerPort, int controllerPort) {
    return startOnce(dir, brokerPort, controllerPort, Map.of());
  }

  private static EmbeddedKafka startOnce(
      Path dir, int brokerPort, int controllerPort, Map<String, String> overrides) {
    Properties props = KafkaBrokerProperties.of(dir, brokerPort, controllerPort);
    props.putAll(overrides);
    KafkaConfig config = new KafkaConfig(props, false);
    format(dir);
    KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
    EmbeddedKafka kafka = new EmbeddedKafka(server, dir, brokerPort);
    try {
      server.startup();
      kafka.awaitReady();
      return kafka;
    } catch (RuntimeException e) {
      kafka.close();
      throw e;
    }
  }

  /** Writes meta.properties and the bootstrap metadata, unless an earlier broker did already. */
  private static void format(Path dir) {
    if (Files.exists(dir.resolve("meta.properties"))) {
      log.info("Reusing the formatted Kafka log directory {}", dir);
      return;
    }
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    Formatter formatter =
        new Formatter()
            .setPrintStream(new PrintStream(output, true, StandardCharsets.UTF_8))
            .setNodeId(KafkaBrokerProperties.NODE_ID)
            .setClusterId(Uuid.randomUuid().toString())
            .setDirectories(List.of(dir.toString()))
            .setMetadataLogDirectory(dir.toString())
            .setControllerListenerName(KafkaBrokerProperties.CONTROLLER_LISTENER)
            .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION);
    try {
      formatter.run();
    } catch (Exception e) {
      throw new IllegalStateException("cannot format Kafka log directory " + dir, e);
    }
    log.debug("Kafka storage formatter: {}", output.toString(StandardCharsets.UTF_8).trim());
  }

  private void awaitReady() {
    Map<String, Object> adminConfig =
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers,
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
            (int) READY_TIMEOUT.toMillis(),
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            (int) READY_TIMEOUT.toMillis());
    try (Admin admin = Admin.create(adminConfig)) {
      admin
          .describeCluster(new DescribeClusterOptions().timeoutMs((int) READY_TIMEOUT.toMillis()))
          .nodes()
          .get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for Kafka at " + bootstrapServers, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "Kafka at " + bootstrapServers + " not ready within " + READY_TIMEOUT, e);
    }
  }

  /** The broker's PLAINTEXT listener, {@code "127.0.0.1:<port>"}. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** Shuts the broker and controller down and waits until they have stopped. Idempotent. */
  @Override
  public void close() {
    stopOnce.stop(
        log,
        "Embedded Kafka at " + bootstrapServers + " (data " + dataDir + ")",
        () -> {
          server.shutdown();
          server.awaitShutdown();
        });
  }

  @Override
  public String toString() {
    return "EmbeddedKafka[" + bootstrapServers + ", " + dataDir + "]";
  }

  /** Whether {@code e} or one of its causes is a {@link BindException}. Visible for tests. */
  static boolean causedByBindFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof BindException) {
        return true;
      }
    }
    return false;
  }

  private static void createDirectories(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create Kafka data directory " + dir, e);
    }
  }
}
