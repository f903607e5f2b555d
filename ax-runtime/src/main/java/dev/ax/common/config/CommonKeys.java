package dev.ax.common.config;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The keys more than one module reads: where Kafka and the database are, the topics, the pool and
 * migrations, the clock, this node's id, the metrics endpoint, the shutdown grace, the switches'
 * poll and the spec cache (ticker and dispatcher). {@link CommonConfig} holds their values. Each
 * key is documented in docs/CONFIGURATION.md. Declared once, here; see {@link ConfigKeySet}.
 */
public final class CommonKeys implements ConfigKeySet {

  public static final ConfigKey<String> CONFIG_FILE =
      ConfigKey.string(
          "AX_CONFIG_FILE",
          "",
          "A properties file with more AX_* keys (weaker than the environment).");

  public static final ConfigKey<String> KAFKA_BOOTSTRAP =
      ConfigKey.string(
          "AX_KAFKA_BOOTSTRAP",
          "",
          "Kafka bootstrap servers, host:port[,host:port]. Empty: `ax up` / `ax demo` start an embedded broker; a stage's own Main requires it.");

  public static final ConfigKey<String> KAFKA_PROPERTIES_FILE =
      ConfigKey.string(
          "AX_KAFKA_PROPERTIES_FILE",
          "",
          "A Kafka client properties file merged into every client of the process (producers, consumers, admin, Streams): security, timeouts, anything Kafka's client documents. The AX_KAFKA_* keys below win over it, and AX's own settings (serializers, group, commits, acks, idempotence, isolation) win over both.");

  public static final ConfigKey<String> KAFKA_SECURITY_PROTOCOL =
      ConfigKey.matching(
          "AX_KAFKA_SECURITY_PROTOCOL",
          "",
          Pattern.compile("|PLAINTEXT|SSL|SASL_PLAINTEXT|SASL_SSL"),
          "PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL",
          "Kafka security.protocol of every client. Empty: the properties file's, else PLAINTEXT (a laptop); SASL_SSL or SSL in production.");

  public static final ConfigKey<String> KAFKA_SASL_MECHANISM =
      ConfigKey.matching(
          "AX_KAFKA_SASL_MECHANISM",
          "",
          Pattern.compile("|PLAIN|SCRAM-SHA-256|SCRAM-SHA-512|OAUTHBEARER|GSSAPI"),
          "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or GSSAPI",
          "Kafka sasl.mechanism for SASL_PLAINTEXT / SASL_SSL.");

  public static final ConfigKey<String> KAFKA_SASL_JAAS_CONFIG =
      ConfigKey.secret(
          "AX_KAFKA_SASL_JAAS_CONFIG",
          "",
          "Kafka sasl.jaas.config, e.g. `org.apache.kafka.common.security.scram.ScramLoginModule required username=\"ax\" password=\"...\";` (never logged; or AX_KAFKA_SASL_JAAS_CONFIG_FILE).");

  public static final ConfigKey<String> KAFKA_SSL_TRUSTSTORE_LOCATION =
      ConfigKey.string(
          "AX_KAFKA_SSL_TRUSTSTORE_LOCATION",
          "",
          "Kafka ssl.truststore.location: the CAs that sign the brokers' certificates (PKCS12 or JKS). Empty: the JVM's default trust store.");

  public static final ConfigKey<String> KAFKA_SSL_TRUSTSTORE_PASSWORD =
      ConfigKey.secret(
          "AX_KAFKA_SSL_TRUSTSTORE_PASSWORD",
          "",
          "Kafka ssl.truststore.password (never logged; or AX_KAFKA_SSL_TRUSTSTORE_PASSWORD_FILE).");

  public static final ConfigKey<String> KAFKA_SSL_KEYSTORE_LOCATION =
      ConfigKey.string(
          "AX_KAFKA_SSL_KEYSTORE_LOCATION",
          "",
          "Kafka ssl.keystore.location: this client's certificate and key, where the brokers require client certificates (mutual TLS).");

  public static final ConfigKey<String> KAFKA_SSL_KEYSTORE_PASSWORD =
      ConfigKey.secret(
          "AX_KAFKA_SSL_KEYSTORE_PASSWORD",
          "",
          "Kafka ssl.keystore.password (never logged; or AX_KAFKA_SSL_KEYSTORE_PASSWORD_FILE).");

  public static final ConfigKey<String> KAFKA_SSL_KEY_PASSWORD =
      ConfigKey.secret(
          "AX_KAFKA_SSL_KEY_PASSWORD",
          "",
          "Kafka ssl.key.password, the private key's own password when it has one (never logged; or AX_KAFKA_SSL_KEY_PASSWORD_FILE).");

  public static final ConfigKey<String> TOPIC_PREFIX =
      ConfigKey.matching(
          "AX_TOPIC_PREFIX",
          "",
          Pattern.compile("[A-Za-z0-9._-]{0,100}"),
          "letters, digits, '.', '_' or '-' (at most 100)",
          "Prefix of every AX topic name, e.g. `staging.`. Deployments that share a database must not share its ticker: the prefix separates topics, not tasks.");

  public static final ConfigKey<Integer> TOPIC_PARTITIONS =
      ConfigKey.integer(
          "AX_TOPIC_PARTITIONS",
          6,
          1,
          1000,
          "Partitions of the topics AX creates when they are missing.");

  public static final ConfigKey<Integer> TOPIC_REPLICATION =
      ConfigKey.integer(
          "AX_TOPIC_REPLICATION",
          1,
          1,
          10,
          "Replication factor of the topics AX creates when they are missing.");

  public static final ConfigKey<String> JDBC_URL =
      ConfigKey.string(
          "AX_JDBC_URL",
          "",
          "jdbc:mysql:// URL of the AX database. Empty: `ax up` / `ax demo` start an embedded MariaDB; a stage's own Main requires it.");

  public static final ConfigKey<String> JDBC_USER =
      ConfigKey.string("AX_JDBC_USER", "root", "Database user.");

  public static final ConfigKey<String> JDBC_PASSWORD =
      ConfigKey.secret(
          "AX_JDBC_PASSWORD",
          "",
          "Database password (never logged; or AX_JDBC_PASSWORD_FILE, a file holding it, as Docker and Kubernetes mount secrets).");

  public static final ConfigKey<String> JDBC_SSL_MODE =
      ConfigKey.matching(
          "AX_JDBC_SSL_MODE",
          "PREFERRED",
          Pattern.compile("DISABLED|PREFERRED|REQUIRED|VERIFY_CA|VERIFY_IDENTITY"),
          "DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY",
          "MySQL Connector/J sslMode of every connection. PREFERRED (TLS when the server offers it) suits a laptop; use VERIFY_IDENTITY in production (with the server's CA in the JVM's trust store or the URL's trustCertificateKeyStoreUrl). An sslMode (or useSSL/requireSSL) in AX_JDBC_URL wins.");

  public static final ConfigKey<Boolean> JDBC_ALLOW_PUBLIC_KEY_RETRIEVAL =
      ConfigKey.bool(
          "AX_JDBC_ALLOW_PUBLIC_KEY_RETRIEVAL",
          false,
          "Let the driver ask the server for its RSA key to send a caching_sha2_password over a connection without TLS (open to a man in the middle). Off: use TLS, or turn it on for a trusted network only. One in AX_JDBC_URL wins.");

  public static final ConfigKey<Integer> DB_POOL_SIZE =
      ConfigKey.integer(
          "AX_DB_POOL_SIZE", 10, 1, 500, "Connections per stage in the HikariCP pool.");

  public static final ConfigKey<Boolean> DB_MIGRATE =
      ConfigKey.bool(
          "AX_DB_MIGRATE",
          true,
          "Apply schema migrations (Flyway) at start, if the schema is behind. With false the stage only checks the schema version and stops (exit 2) if it is behind: run `ax migrate` once per upgrade, and give the stages a user without DDL rights.");

  public static final ConfigKey<Duration> DB_CLOCK_REANCHOR =
      ConfigKey.duration(
          "AX_DB_CLOCK_REANCHOR",
          "5s",
          Duration.ofSeconds(1),
          Duration.ofHours(1),
          "How often the local monotonic clock is re-anchored to the database clock.");

  public static final ConfigKey<Duration> CLOCK_SKEW_THRESHOLD =
      ConfigKey.duration(
          "AX_CLOCK_SKEW_THRESHOLD",
          "500ms",
          Duration.ofMillis(10),
          Duration.ofMinutes(10),
          "When the database clock and the local monotonic clock disagree by more than this at a re-anchor, the ticker stops emitting until they agree again.");

  public static final ConfigKey<String> NODE_ID =
      ConfigKey.string(
          "AX_NODE_ID",
          "",
          "This process's name in the audit log and as instance owner. Empty: host name and pid.");

  public static final ConfigKey<Duration> SHUTDOWN_GRACE =
      ConfigKey.duration(
          "AX_SHUTDOWN_GRACE",
          "30s",
          Duration.ZERO,
          Duration.ofMinutes(30),
          "How long a stopping stage lets running work finish. A dispatcher then interrupts the attempts still running (taken back after their lease) and releases those still queued, never started (emitted again after AX_REAPER_UNCLAIMED_AFTER, as the same attempt; if that write fails, after their lease).");

  public static final ConfigKey<Duration> SWITCH_POLL =
      ConfigKey.duration(
          "AX_SWITCH_POLL",
          "2s",
          Duration.ofMillis(100),
          Duration.ofMinutes(5),
          "How often each stage reads the emergency switches (`ax switch`); a change takes effect within this.");

  public static final ConfigKey<Integer> SPEC_CACHE_MAX_BYTES =
      ConfigKey.integer(
          "AX_SPEC_CACHE_MAX_BYTES",
          64 * 1024 * 1024,
          1024 * 1024,
          Integer.MAX_VALUE,
          "Most bytes of task specs the ticker and each dispatcher keep cached (each spec weighs its JSON length plus 256); the least recently used are read again when needed.");

  public static final ConfigKey<String> METRICS_BIND =
      ConfigKey.matching(
          "AX_METRICS_BIND",
          "127.0.0.1:9400",
          Pattern.compile("off|[A-Za-z0-9.:\\[\\]-]+:\\d{1,5}"),
          "host:port or off",
          "host:port of the Prometheus endpoint (/metrics) and the probes (/health/live: 200 while the process serves; /health/ready: 200 once the database, the broker and the stage's own condition are fine, else 503, each check's outcome as JSON); `off` disables them. Loopback unless configured otherwise.");

  /** For the {@link java.util.ServiceLoader} only. */
  public CommonKeys() {}
}
