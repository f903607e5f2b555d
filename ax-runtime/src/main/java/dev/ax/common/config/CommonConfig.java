package dev.ax.common.config;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * The values of the {@link CommonKeys}, read once at start by a stage's {@code Main} (or by the
 * CLI) and handed to the runtime and, through the stage context, to every stage. Immutable; its
 * {@link #toString()} masks the password (also one inside the JDBC URL).
 *
 * @param kafkaBootstrap empty when not configured (a stage's runtime then refuses to start)
 * @param jdbcUrl empty when not configured
 * @param nodeId as configured; empty means the runtime picks host name and pid
 * @param metricsBind host:port, or {@code off}
 * @param jdbcSslMode Connector/J's sslMode, unless the URL sets one
 * @param kafkaClientProperties the Kafka client settings every client gets ({@link
 *     KafkaClientSettings}), secrets included: never logged unmasked
 */
public record CommonConfig(
    String kafkaBootstrap,
    String topicPrefix,
    int topicPartitions,
    int topicReplication,
    String jdbcUrl,
    String jdbcUser,
    String jdbcPassword,
    String jdbcSslMode,
    boolean jdbcAllowPublicKeyRetrieval,
    int dbPoolSize,
    boolean dbMigrate,
    Duration dbClockReanchor,
    Duration clockSkewThreshold,
    String nodeId,
    Duration shutdownGrace,
    Duration switchPoll,
    int specCacheMaxBytes,
    String metricsBind,
    Map<String, String> kafkaClientProperties) {

  public CommonConfig {
    kafkaClientProperties = Map.copyOf(kafkaClientProperties);
  }

  public static CommonConfig from(AxConfig config) {
    return new CommonConfig(
        config.get(CommonKeys.KAFKA_BOOTSTRAP),
        config.get(CommonKeys.TOPIC_PREFIX),
        config.get(CommonKeys.TOPIC_PARTITIONS),
        config.get(CommonKeys.TOPIC_REPLICATION),
        config.get(CommonKeys.JDBC_URL),
        config.get(CommonKeys.JDBC_USER),
        config.get(CommonKeys.JDBC_PASSWORD),
        config.get(CommonKeys.JDBC_SSL_MODE),
        config.get(CommonKeys.JDBC_ALLOW_PUBLIC_KEY_RETRIEVAL),
        config.get(CommonKeys.DB_POOL_SIZE),
        config.get(CommonKeys.DB_MIGRATE),
        config.get(CommonKeys.DB_CLOCK_REANCHOR),
        config.get(CommonKeys.CLOCK_SKEW_THRESHOLD),
        config.get(CommonKeys.NODE_ID),
        config.get(CommonKeys.SHUTDOWN_GRACE),
        config.get(CommonKeys.SWITCH_POLL),
        config.get(CommonKeys.SPEC_CACHE_MAX_BYTES),
        config.get(CommonKeys.METRICS_BIND),
        KafkaClientSettings.of(config));
  }

  @Override
  public String toString() {
    return "CommonConfig[kafkaBootstrap="
        + kafkaBootstrap
        + ", topicPrefix="
        + topicPrefix
        + ", topicPartitions="
        + topicPartitions
        + ", topicReplication="
        + topicReplication
        + ", jdbcUrl="
        + AxConfig.maskUrlPasswords(jdbcUrl)
        + ", jdbcUser="
        + jdbcUser
        + ", jdbcPassword="
        + (jdbcPassword.isEmpty() ? "" : "****")
        + ", jdbcSslMode="
        + jdbcSslMode
        + ", jdbcAllowPublicKeyRetrieval="
        + jdbcAllowPublicKeyRetrieval
        + ", dbPoolSize="
        + dbPoolSize
        + ", dbMigrate="
        + dbMigrate
        + ", dbClockReanchor="
        + dbClockReanchor
        + ", clockSkewThreshold="
        + clockSkewThreshold
        + ", nodeId="
        + nodeId
        + ", shutdownGrace="
        + shutdownGrace
        + ", switchPoll="
        + switchPoll
        + ", specCacheMaxBytes="
        + specCacheMaxBytes
        + ", metricsBind="
        + metricsBind
        + ", kafkaClientProperties="
        + maskedKafkaClientProperties()
        + "]";
  }

  /** The Kafka client settings with every secret masked. */
  private Map<String, String> maskedKafkaClientProperties() {
    Map<String, String> masked = new TreeMap<>();
    kafkaClientProperties.forEach(
        (name, value) -> masked.put(name, KafkaClientSettings.isSecret(name) ? "****" : value));
    return masked;
  }
}
