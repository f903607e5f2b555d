package dev.ax.ingest;

import dev.ax.common.config.ConfigKey;
import dev.ax.common.config.ConfigKeySet;
import java.time.Duration;

/**
 * The ingest stage's keys: its default timeout, the bounds on a command, the active-task bound, the
 * announcement horizon and the graph's republishing. {@link IngestConfig} holds their values. Each
 * key is declared once, here; see {@link ConfigKeySet}.
 */
public final class IngestKeys implements ConfigKeySet {

  public static final ConfigKey<Duration> DEFAULT_TIMEOUT =
      ConfigKey.duration(
          "AX_DEFAULT_TIMEOUT",
          "60s",
          Duration.ofSeconds(1),
          Duration.ofHours(24),
          "Timeout of a task that sets no timeoutMs (ingest logs a warning for such a task).");

  public static final ConfigKey<Duration> ANNOUNCE_HORIZON =
      ConfigKey.duration(
          "AX_INGEST_ANNOUNCE_HORIZON",
          "10s",
          Duration.ZERO,
          Duration.ofHours(1),
          "Ingest announces instances due within this horizon on ax.task.scheduled.");

  public static final ConfigKey<Integer> MAX_ACTIVE_TASKS_PER_GROUP =
      ConfigKey.integer(
          "AX_MAX_ACTIVE_TASKS_PER_GROUP",
          20_000_000,
          1,
          Integer.MAX_VALUE,
          "Most live tasks one task group may hold: ACTIVE or PAUSED (not cancelled, deleted, or ENDED: a ONCE task ends with its last instance). Ingest rejects a CREATE beyond it, and an UPDATE that would add a live task to a full group (a move from another group, or an ENDED task made ACTIVE again), with the group's count in the reason.");

  public static final ConfigKey<Integer> MAX_ACTIVE_TASKS_PER_NAMESPACE =
      ConfigKey.integer(
          "AX_MAX_ACTIVE_TASKS_PER_NAMESPACE",
          50_000_000,
          1,
          Integer.MAX_VALUE,
          "Most live tasks one namespace (other than the default one) may hold over all its groups; ingest rejects a CREATE beyond it with the namespace's count in the reason. A tenant's bound however many groups it makes.");

  public static final ConfigKey<Integer> MAX_COMMANDS_PER_SECOND_PER_NAMESPACE =
      ConfigKey.integer(
          "AX_MAX_COMMANDS_PER_SECOND_PER_NAMESPACE",
          5_000,
          0,
          Integer.MAX_VALUE,
          "Commands per second ingest reads from one namespace's topic (every namespace but the default one; a burst of one second's worth at once). Over it, ingest pauses that namespace's partitions until its rate allows more: its commands wait in Kafka, none is refused, other namespaces go on (ax_ingest_namespace_throttled_total counts each pause). Per ingest replica. 0: no limit.");

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

  public static final ConfigKey<Duration> DEPENDENCY_REPUBLISH =
      ConfigKey.duration(
          "AX_DEPENDENCY_REPUBLISH",
          "60s",
          Duration.ofSeconds(1),
          Duration.ofHours(24),
          "How often ingest publishes the whole dependency graph again from the database, so the resolver's table converges even if two ingest replicas published one upstream's entry out of order.");

  /** For the {@link java.util.ServiceLoader} only. */
  public IngestKeys() {}
}
