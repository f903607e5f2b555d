package dev.ax.cli.local;

import dev.ax.common.config.CommonConfig;
import dev.ax.common.config.CommonKeys;
import dev.ax.common.config.ConfigException;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.embedded.DatabaseCoordinates;
import dev.ax.embedded.EmbeddedStack;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka and the database for a run in this JVM: either an {@link EmbeddedStack} started here (with
 * its database {@value #DATABASE}), or the external servers the configuration names. Either way
 * {@link #overrides()} gives the configuration keys that point the stages at them.
 *
 * <p>Immutable after construction; {@link #close()} stops what this class started (nothing for
 * external servers) and is called by the thread that started it.
 */
public final class Infrastructure implements AutoCloseable {

  /** The database created on an embedded server. */
  public static final String DATABASE = "ax";

  private static final Logger log = LoggerFactory.getLogger(Infrastructure.class);

  private final EmbeddedStack stack;
  private final KafkaConnection kafka;
  private final String jdbcUrl;
  private final Map<String, String> overrides;

  private Infrastructure(
      EmbeddedStack stack, KafkaConnection kafka, String jdbcUrl, Map<String, String> overrides) {
    this.stack = stack;
    this.kafka = kafka;
    this.jdbcUrl = jdbcUrl;
    this.overrides = Map.copyOf(overrides);
  }

  /** Whether {@link #resolve} starts embedded servers for {@code config}: neither server set. */
  public static boolean embeds(CommonConfig config) {
    return config.kafkaBootstrap().isBlank() && config.jdbcUrl().isBlank();
  }

  /**
   * The external servers when {@code AX_KAFKA_BOOTSTRAP} and {@code AX_JDBC_URL} are both set,
   * otherwise an embedded stack keeping its data in {@code workDir}.
   *
   * @throws ConfigException when only one of the two is set
   * @throws IllegalStateException when the embedded stack cannot start
   */
  public static Infrastructure resolve(CommonConfig config, Path workDir) {
    String bootstrap = config.kafkaBootstrap();
    String jdbc = config.jdbcUrl();
    boolean kafkaSet = !bootstrap.isBlank();
    boolean jdbcSet = !jdbc.isBlank();
    if (kafkaSet && jdbcSet) {
      log.info("Using the configured servers: Kafka {}, database {}", bootstrap, redact(jdbc));
      return new Infrastructure(
          null, new KafkaConnection(bootstrap, config.kafkaClientProperties()), jdbc, Map.of());
    }
    if (kafkaSet || jdbcSet) {
      String set = kafkaSet ? "AX_KAFKA_BOOTSTRAP=" + bootstrap : "AX_JDBC_URL=" + redact(jdbc);
      String empty = kafkaSet ? "AX_JDBC_URL" : "AX_KAFKA_BOOTSTRAP";
      throw new ConfigException(
          set
              + " is set but "
              + empty
              + " is empty: set both to use external servers, or neither to start embedded ones");
    }
    return embedded(workDir);
  }

  /**
   * Starts Kafka and MariaDB in {@code workDir} (reusing the data an earlier run left there) and
   * creates the database {@value #DATABASE}.
   *
   * @throws IllegalStateException when they cannot start
   */
  public static Infrastructure embedded(Path workDir) {
    EmbeddedStack stack = EmbeddedStack.start(workDir);
    try {
      DatabaseCoordinates database = stack.createDatabase(DATABASE);
      Map<String, String> overrides = new LinkedHashMap<>();
      overrides.put(CommonKeys.KAFKA_BOOTSTRAP.name(), stack.bootstrapServers());
      overrides.put(CommonKeys.JDBC_URL.name(), database.jdbcUrl());
      overrides.put(CommonKeys.JDBC_USER.name(), database.user());
      overrides.put(CommonKeys.JDBC_PASSWORD.name(), database.password());
      return new Infrastructure(
          stack,
          KafkaConnection.plaintext(stack.bootstrapServers()),
          database.jdbcUrl(),
          overrides);
    } catch (RuntimeException e) {
      stack.close();
      throw e;
    }
  }

  /** Configuration keys that point the stages at these servers; empty for external ones. */
  public Map<String, String> overrides() {
    return overrides;
  }

  public boolean isEmbedded() {
    return stack != null;
  }

  public String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  /** The broker and how to reach it: the configured security for external servers. */
  public KafkaConnection kafka() {
    return kafka;
  }

  /** The JDBC URL with any password in it masked, for printing. */
  public String displayJdbcUrl() {
    return redact(jdbcUrl);
  }

  /** Stops the embedded stack (Kafka, then MariaDB); nothing for external servers. */
  @Override
  public void close() {
    if (stack != null) {
      stack.close();
    }
  }

  /**
   * Masks a password a JDBC URL may carry, as {@code user:password@host} or {@code password=...}.
   */
  static String redact(String jdbcUrl) {
    return jdbcUrl
        .replaceAll("(//[^/:@]+):[^/@]*@", "$1:****@")
        .replaceAll("(?i)(password=)[^&]*", "$1****");
  }
}
