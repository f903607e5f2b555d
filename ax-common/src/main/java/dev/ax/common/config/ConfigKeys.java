package dev.ax.common.config;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Every configuration key AX reads, with its default and what it does. docs/CONFIGURATION.md lists
 * the same keys (a test keeps the two in step).
 */
public final class ConfigKeys {

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
  public static final ConfigKey<Duration> DEFAULT_TIMEOUT =
      ConfigKey.duration(
          "AX_DEFAULT_TIMEOUT",
          "60s",
          Duration.ofSeconds(1),
          Duration.ofHours(24),
          "Timeout of a task that sets no timeoutMs (ingest logs a warning for such a task).");
  public static final ConfigKey<Duration> SHUTDOWN_GRACE =
      ConfigKey.duration(
          "AX_SHUTDOWN_GRACE",
          "30s",
          Duration.ZERO,
          Duration.ofMinutes(30),
          "How long a stopping stage lets running work finish.");

  public static final ConfigKey<Duration> INGEST_ANNOUNCE_HORIZON =
      ConfigKey.duration(
          "AX_INGEST_ANNOUNCE_HORIZON",
          "10s",
          Duration.ZERO,
          Duration.ofHours(1),
          "Ingest announces instances due within this horizon on ax.task.scheduled.");

  public static final ConfigKey<Integer> MAX_ACTIVE_TASKS_PER_GROUP =
      ConfigKey.integer(
          "AX_MAX_ACTIVE_TASKS_PER_GROUP",
          100_000,
          1,
          Integer.MAX_VALUE,
          "Most active tasks one task group may hold (not cancelled; a ONCE task until its instance ended). Ingest rejects a CREATE beyond it, with the group's count in the reason.");
  public static final ConfigKey<Integer> MAX_COMMAND_BYTES =
      ConfigKey.integer(
          "AX_MAX_COMMAND_BYTES",
          256 * 1024,
          1024,
          1024 * 1024,
          "Largest task command (bytes of the Kafka record value) ingest reads; a larger one is rejected before it is parsed.");
  public static final ConfigKey<Duration> MAX_HORIZON =
      ConfigKey.duration(
          "AX_MAX_HORIZON",
          "3650d",
          Duration.ofHours(1),
          Duration.ofDays(36_500),
          "How far ahead a command may put a due time (ONCE delayMs, at/atMs; FIXED_RATE/FIXED_DELAY startAt/startAtMs; a CRON expression's first firing); further is rejected.");
  public static final ConfigKey<Duration> MAX_PAST =
      ConfigKey.duration(
          "AX_MAX_PAST",
          "1d",
          Duration.ZERO,
          Duration.ofDays(3650),
          "How far in the past an absolute due time (ONCE at/atMs, startAt/startAtMs) may be; a ONCE task due in the past fires at once, one due further back is rejected.");
  public static final ConfigKey<Duration> MIN_INTERVAL =
      ConfigKey.duration(
          "AX_MIN_INTERVAL",
          "1s",
          Duration.ofMillis(1),
          Duration.ofHours(1),
          "Shortest FIXED_RATE/FIXED_DELAY intervalMs a command may ask for, and the shortest gap between the firings of a CRON expression; shorter is rejected.");

  public static final ConfigKey<Duration> TICKER_HORIZON =
      ConfigKey.duration(
          "AX_TICKER_HORIZON",
          "10s",
          Duration.ofSeconds(1),
          Duration.ofHours(1),
          "The ticker holds instances due within this horizon in memory.");
  public static final ConfigKey<Duration> TICKER_LOAD_INTERVAL =
      ConfigKey.duration(
          "AX_TICKER_LOAD_INTERVAL",
          "1s",
          Duration.ofMillis(50),
          Duration.ofMinutes(5),
          "How often the ticker loads the next window of due instances from the database.");
  public static final ConfigKey<Integer> TICKER_MAX_BATCH =
      ConfigKey.integer(
          "AX_TICKER_MAX_BATCH", 5000, 1, 100_000, "Most instances the ticker fires in one batch.");
  public static final ConfigKey<Integer> TICKER_MAX_HELD =
      ConfigKey.integer(
          "AX_TICKER_MAX_HELD",
          200_000,
          1000,
          10_000_000,
          "Most instances the ticker holds in memory; the rest wait in the database for a later load.");

  public static final ConfigKey<Duration> TICKER_TICK =
      ConfigKey.duration(
          "AX_TICKER_TICK",
          "10ms",
          Duration.ofMillis(1),
          Duration.ofSeconds(1),
          "The time wheel's tick: the granularity of its buckets (firing itself is exact to the millisecond).");
  public static final ConfigKey<Integer> TICKER_WHEEL_SIZE =
      ConfigKey.integer(
          "AX_TICKER_WHEEL_SIZE",
          512,
          2,
          65_536,
          "Buckets per level of the time wheel; longer delays go to overflow levels.");
  public static final ConfigKey<Integer> TICKER_RESCAN_EVERY =
      ConfigKey.integer(
          "AX_TICKER_RESCAN_EVERY",
          10,
          1,
          100_000,
          "Every this many window loads the ticker re-reads its whole window from the database, as a safety net.");
  public static final ConfigKey<Duration> TICKER_MISFIRE_THRESHOLD =
      ConfigKey.duration(
          "AX_TICKER_MISFIRE_THRESHOLD",
          "5s",
          Duration.ZERO,
          Duration.ofHours(1),
          "A periodic firing later than this is a misfire, handled by the task's misfire policy.");
  public static final ConfigKey<Duration> TICKER_LEASE =
      ConfigKey.duration(
          "AX_TICKER_LEASE",
          "3s",
          Duration.ofSeconds(1),
          Duration.ofMinutes(10),
          "How long the ticker leader's database lease lasts without renewal; a standby takes over after it expires (hand-over takes at most this plus one heartbeat, and the first window load).");
  public static final ConfigKey<Duration> TICKER_HEARTBEAT =
      ConfigKey.duration(
          "AX_TICKER_HEARTBEAT",
          "1s",
          Duration.ofMillis(100),
          Duration.ofMinutes(5),
          "How often the leader renews its lease and a standby tries to take it; must be shorter than AX_TICKER_LEASE.");

  public static final ConfigKey<Duration> REAPER_INTERVAL =
      ConfigKey.duration(
          "AX_REAPER_INTERVAL",
          "5s",
          Duration.ofMillis(100),
          Duration.ofMinutes(10),
          "How often the ticker leader looks for expired runs and unclaimed instances.");
  public static final ConfigKey<Duration> REAPER_UNCLAIMED_AFTER =
      ConfigKey.duration(
          "AX_REAPER_UNCLAIMED_AFTER",
          "30s",
          Duration.ofSeconds(1),
          Duration.ofHours(1),
          "A DISPATCHED instance nobody claimed for this long is emitted again.");
  public static final ConfigKey<Integer> MAX_TAKEBACKS =
      ConfigKey.integer(
          "AX_MAX_TAKEBACKS",
          3,
          0,
          1000,
          "How often the reaper takes back one instance's run whose dispatcher died (its lease expired) before the instance ends DEAD instead, with a dead letter saying so. A take-back starts the next attempt but does not count against the task's maxRetries; a replayed dead letter starts counting again. 0: the first such run ends the instance DEAD.");

  public static final ConfigKey<Integer> RETRY_RATE =
      ConfigKey.integer(
          "AX_RETRY_RATE",
          200,
          1,
          1_000_000,
          "Retried attempts each retry stage replica dispatches per second at most; a burst of failures is flattened to this rate.");
  public static final ConfigKey<Integer> RETRY_MAX_IN_FLIGHT =
      ConfigKey.integer(
          "AX_RETRY_MAX_IN_FLIGHT",
          500,
          1,
          1_000_000,
          "Retried attempts dispatched or running at once, across the deployment, beyond which the retry stage holds the next ones back.");
  public static final ConfigKey<Duration> RETRY_HORIZON =
      ConfigKey.duration(
          "AX_RETRY_HORIZON",
          "60s",
          Duration.ofSeconds(1),
          Duration.ofHours(1),
          "The retry stage's wheel holds retries due within this horizon; later ones stay in the database until they come within it.");
  public static final ConfigKey<Duration> RETRY_RESCAN =
      ConfigKey.duration(
          "AX_RETRY_RESCAN",
          "5s",
          Duration.ofMillis(100),
          Duration.ofMinutes(10),
          "How often the retry stage reads pending retries from the database (its rebuild after a restart, and its safety net for lost retry events).");

  public static final ConfigKey<String> DEADLETTER_WEBHOOK_URL =
      ConfigKey.secret(
          "AX_DEADLETTER_WEBHOOK_URL",
          "",
          "Where the dead-letter stage POSTs a JSON alert for each new dead letter. Empty: no webhook (the ax.deadletter.stored metric still moves). Treated as a secret: never logged.");
  public static final ConfigKey<Integer> DEADLETTER_WEBHOOK_PER_MINUTE =
      ConfigKey.integer(
          "AX_DEADLETTER_WEBHOOK_PER_MINUTE",
          60,
          1,
          100_000,
          "Webhook alerts sent per minute at most; alerts beyond it are counted (ax.deadletter.alerts.suppressed) and dropped.");

  public static final ConfigKey<Duration> SWITCH_POLL =
      ConfigKey.duration(
          "AX_SWITCH_POLL",
          "2s",
          Duration.ofMillis(100),
          Duration.ofMinutes(5),
          "How often each stage reads the emergency switches (`ax switch`); a change takes effect within this.");

  public static final ConfigKey<Duration> DEPENDENCY_REPUBLISH =
      ConfigKey.duration(
          "AX_DEPENDENCY_REPUBLISH",
          "60s",
          Duration.ofSeconds(1),
          Duration.ofHours(24),
          "How often ingest publishes the whole dependency graph again from the database, so the resolver's table converges even if two ingest replicas published one upstream's entry out of order.");
  public static final ConfigKey<String> RESOLVER_STATE_DIR =
      ConfigKey.string(
          "AX_RESOLVER_STATE_DIR",
          "",
          "Where the dependency resolver (Kafka Streams) keeps its local state; empty: a directory under java.io.tmpdir named after the node. State is rebuilt from its changelog when lost.");
  public static final ConfigKey<Duration> FLOW_JOIN_RETENTION =
      ConfigKey.duration(
          "AX_FLOW_JOIN_RETENTION",
          "24h",
          Duration.ofSeconds(1),
          Duration.ofDays(30),
          "How long the resolver keeps a join whose upstreams have not all succeeded in a flow run (and a triggered one, to absorb duplicate events); then it is dropped, logged and counted (ax.resolver.joins.dropped).");

  public static final ConfigKey<Integer> DISPATCHER_THREADS =
      ConfigKey.integer(
          "AX_DISPATCHER_THREADS",
          64,
          1,
          4096,
          "Worker threads per task group (a bulkhead each) unless AX_DISPATCHER_GROUP_THREADS names the group.");
  public static final ConfigKey<Map<String, Integer>> DISPATCHER_GROUP_THREADS =
      ConfigKey.sizesByName(
          "AX_DISPATCHER_GROUP_THREADS",
          "",
          1,
          4096,
          "Worker threads of particular task groups, e.g. `reports=4,billing=32`; `__retry` sizes the pool of retried attempts, `__overflow` the pool shared by groups beyond AX_DISPATCHER_MAX_GROUPS.");
  public static final ConfigKey<Integer> SPEC_CACHE_MAX_BYTES =
      ConfigKey.integer(
          "AX_SPEC_CACHE_MAX_BYTES",
          64 * 1024 * 1024,
          1024 * 1024,
          Integer.MAX_VALUE,
          "Most bytes of task specs the ticker and each dispatcher keep cached (each spec weighs its JSON length plus 256); the least recently used are read again when needed.");
  public static final ConfigKey<Integer> DISPATCHER_MAX_GROUPS =
      ConfigKey.integer(
          "AX_DISPATCHER_MAX_GROUPS",
          64,
          1,
          10_000,
          "Task groups that get a worker pool (bulkhead) of their own in one dispatcher, the first ones seen (groups named in AX_DISPATCHER_GROUP_THREADS always have their own, outside this cap); later groups share one overflow pool (`__overflow`, sized like a group), so the number of pools and threads stays bounded whatever groups producers invent. Idle pool threads end after 60 s.");
  public static final ConfigKey<Integer> DISPATCHER_QUEUE =
      ConfigKey.integer(
          "AX_DISPATCHER_QUEUE",
          1000,
          1,
          1_000_000,
          "Claimed instances waiting for a worker; when full the dispatcher stops fetching.");
  public static final ConfigKey<Duration> DISPATCHER_HOLD_FOR =
      ConfigKey.duration(
          "AX_DISPATCHER_HOLD_FOR",
          "1s",
          Duration.ofMillis(100),
          Duration.ofMinutes(10),
          "How long one task group's full pool may hold up fetching for every group. Once a group's pool has had no room for this long, and fetching would pause, the group keeps only the due events its pool started in the last AX_DISPATCHER_HOLD_FOR (the oldest, at least one); the rest stay DISPATCHED and the reaper emits them again after AX_REAPER_UNCLAIMED_AFTER.");
  public static final ConfigKey<Duration> OUTBOX_RELAY_AFTER =
      ConfigKey.duration(
          "AX_OUTBOX_RELAY_AFTER",
          "10s",
          Duration.ofSeconds(1),
          Duration.ofHours(1),
          "An outcome's events (completion, flow success, retry, dead letter) not confirmed by the broker this long after their outcome was recorded are sent again by any dispatcher's outbox relay: the one that recorded them may have died. Consumers may see such an event twice, never zero times.");
  public static final ConfigKey<Duration> DISPATCHER_LEASE =
      ConfigKey.duration(
          "AX_DISPATCHER_LEASE",
          "60s",
          Duration.ofSeconds(5),
          Duration.ofHours(25),
          "How long a claim holds a run without renewal; the dispatcher renews the leases of its running attempts every third of it, and the reaper takes back a run whose lease expired (its dispatcher died).");
  public static final ConfigKey<List<String>> HTTP_ALLOWED_HOSTS =
      ConfigKey.list(
          "AX_HTTP_ALLOWED_HOSTS",
          "",
          "Hosts the HTTP executor may call, comma-separated (exact names; `*.example.com` for subdomains). Empty: no HTTP task may run.");
  public static final ConfigKey<Integer> HTTP_MAX_RESPONSE_EXCERPT =
      ConfigKey.integer(
          "AX_HTTP_MAX_RESPONSE_EXCERPT",
          512,
          0,
          65536,
          "Characters of a failed HTTP response body kept in the error.");

  public static final ConfigKey<String> SHELL_SCRIPT_DIR =
      ConfigKey.string(
          "AX_SHELL_SCRIPT_DIR",
          "",
          "Directory SHELL tasks may run scripts from (plain file names; symlinks must stay inside). Empty: SHELL tasks are disabled. Must be writable only by whoever deploys scripts.");
  public static final ConfigKey<Integer> SHELL_MAX_OUTPUT =
      ConfigKey.integer(
          "AX_SHELL_MAX_OUTPUT",
          65536,
          0,
          16 * 1024 * 1024,
          "Bytes kept of each of a script's stdout and stderr; the rest is read and dropped. The end of stderr goes into a failure's error.");
  public static final ConfigKey<Duration> SHELL_KILL_GRACE =
      ConfigKey.duration(
          "AX_SHELL_KILL_GRACE",
          "5s",
          Duration.ZERO,
          Duration.ofMinutes(1),
          "When a script's time is up: time between SIGTERM and SIGKILL to its process tree.");

  public static final ConfigKey<String> METRICS_BIND =
      ConfigKey.matching(
          "AX_METRICS_BIND",
          "127.0.0.1:9400",
          Pattern.compile("off|[A-Za-z0-9.:\\[\\]-]+:\\d{1,5}"),
          "host:port or off",
          "host:port of the Prometheus endpoint (/metrics); `off` disables it. Loopback unless configured otherwise.");

  private static final Map<String, ConfigKey<?>> BY_NAME = new LinkedHashMap<>();

  static {
    for (ConfigKey<?> key :
        List.of(
            CONFIG_FILE,
            KAFKA_BOOTSTRAP,
            TOPIC_PREFIX,
            TOPIC_PARTITIONS,
            TOPIC_REPLICATION,
            JDBC_URL,
            JDBC_USER,
            JDBC_PASSWORD,
            DB_POOL_SIZE,
            DB_MIGRATE,
            DB_CLOCK_REANCHOR,
            CLOCK_SKEW_THRESHOLD,
            NODE_ID,
            DEFAULT_TIMEOUT,
            SHUTDOWN_GRACE,
            INGEST_ANNOUNCE_HORIZON,
            MAX_ACTIVE_TASKS_PER_GROUP,
            MAX_COMMAND_BYTES,
            MAX_HORIZON,
            MAX_PAST,
            MIN_INTERVAL,
            TICKER_HORIZON,
            TICKER_LOAD_INTERVAL,
            TICKER_MAX_BATCH,
            TICKER_MAX_HELD,
            TICKER_TICK,
            TICKER_WHEEL_SIZE,
            TICKER_RESCAN_EVERY,
            TICKER_MISFIRE_THRESHOLD,
            TICKER_LEASE,
            TICKER_HEARTBEAT,
            REAPER_INTERVAL,
            REAPER_UNCLAIMED_AFTER,
            MAX_TAKEBACKS,
            RETRY_RATE,
            RETRY_MAX_IN_FLIGHT,
            RETRY_HORIZON,
            RETRY_RESCAN,
            DEADLETTER_WEBHOOK_URL,
            DEADLETTER_WEBHOOK_PER_MINUTE,
            SWITCH_POLL,
            DEPENDENCY_REPUBLISH,
            RESOLVER_STATE_DIR,
            FLOW_JOIN_RETENTION,
            DISPATCHER_THREADS,
            DISPATCHER_QUEUE,
            DISPATCHER_GROUP_THREADS,
            DISPATCHER_MAX_GROUPS,
            SPEC_CACHE_MAX_BYTES,
            DISPATCHER_HOLD_FOR,
            DISPATCHER_LEASE,
            OUTBOX_RELAY_AFTER,
            HTTP_ALLOWED_HOSTS,
            HTTP_MAX_RESPONSE_EXCERPT,
            SHELL_SCRIPT_DIR,
            SHELL_MAX_OUTPUT,
            SHELL_KILL_GRACE,
            METRICS_BIND)) {
      BY_NAME.put(key.name(), key);
    }
  }

  private ConfigKeys() {}

  public static List<ConfigKey<?>> all() {
    return List.copyOf(BY_NAME.values());
  }

  static Map<String, ConfigKey<?>> byName() {
    return Collections.unmodifiableMap(BY_NAME);
  }
}
