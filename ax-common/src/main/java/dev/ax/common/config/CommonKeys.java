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
      ConfigKey.secret("AX_JDBC_PASSWORD", "", "Database password (never logged).");

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
          "How long a stopping stage lets running work finish.");

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
