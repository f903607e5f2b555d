package dev.ax.ticker;

import dev.ax.common.config.ConfigKey;
import dev.ax.common.config.ConfigKeySet;
import java.time.Duration;

/**
 * The ticker stage's keys: its window and wheel, its batches, its lease, and its reaper. {@link
 * TickerConfig} holds their values. Each key is declared once, here; see {@link ConfigKeySet}.
 */
public final class TickerKeys implements ConfigKeySet {

  public static final ConfigKey<Duration> HORIZON =
      ConfigKey.duration(
          "AX_TICKER_HORIZON",
          "10s",
          Duration.ofSeconds(1),
          Duration.ofHours(1),
          "The ticker holds instances due within this horizon in memory.");

  public static final ConfigKey<Duration> LOAD_INTERVAL =
      ConfigKey.duration(
          "AX_TICKER_LOAD_INTERVAL",
          "1s",
          Duration.ofMillis(50),
          Duration.ofMinutes(5),
          "How often the ticker loads the next window of due instances from the database.");

  public static final ConfigKey<Integer> MAX_BATCH =
      ConfigKey.integer(
          "AX_TICKER_MAX_BATCH", 5000, 1, 100_000, "Most instances the ticker fires in one batch.");

  public static final ConfigKey<Integer> MAX_HELD =
      ConfigKey.integer(
          "AX_TICKER_MAX_HELD",
          200_000,
          1000,
          10_000_000,
          "Most instances the ticker holds in memory; the rest wait in the database for a later load.");

  public static final ConfigKey<Duration> TICK =
      ConfigKey.duration(
          "AX_TICKER_TICK",
          "10ms",
          Duration.ofMillis(1),
          Duration.ofSeconds(1),
          "The time wheel's tick: the granularity of its buckets (firing itself is exact to the millisecond).");

  public static final ConfigKey<Duration> EMIT_AHEAD =
      ConfigKey.duration(
          "AX_TICKER_EMIT_AHEAD",
          "100ms",
          Duration.ZERO,
          Duration.ofSeconds(1),
          "How long before its due time the ticker marks an instance DISPATCHED and emits its due event. The dispatcher holds an event that arrives early and claims it at its due time, never before (the claim is conditional on due_at_ms <= now), so the ticker's transaction and the Kafka hop are off the path from due time to start. 0: emit at the due time. Large bursts due at one instant gain from up to 1s: the ticker then marks them before they are due (docs/BENCHMARKS.md).");

  public static final ConfigKey<Integer> WHEEL_SIZE =
      ConfigKey.integer(
          "AX_TICKER_WHEEL_SIZE",
          512,
          2,
          65_536,
          "Buckets per level of the time wheel; longer delays go to overflow levels.");

  public static final ConfigKey<Integer> RESCAN_EVERY =
      ConfigKey.integer(
          "AX_TICKER_RESCAN_EVERY",
          10,
          1,
          100_000,
          "Every this many window loads the ticker re-reads its whole window from the database, as a safety net.");

  public static final ConfigKey<Duration> MISFIRE_THRESHOLD =
      ConfigKey.duration(
          "AX_TICKER_MISFIRE_THRESHOLD",
          "5s",
          Duration.ZERO,
          Duration.ofHours(1),
          "A periodic firing later than this is a misfire, handled by the task's misfire policy.");

  public static final ConfigKey<Duration> LEASE =
      ConfigKey.duration(
          "AX_TICKER_LEASE",
          "3s",
          Duration.ofSeconds(1),
          Duration.ofMinutes(10),
          "How long the ticker leader's database lease lasts without renewal; a standby takes over after it expires (hand-over takes at most this plus one heartbeat, and the first window load).");

  public static final ConfigKey<Duration> HEARTBEAT =
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

  public static final ConfigKey<Duration> RETENTION =
      ConfigKey.duration(
          "AX_RETENTION",
          "30d",
          Duration.ZERO,
          Duration.ofDays(3650),
          "Finished instances (SUCCESS, CANCELLED, SKIPPED, and DEAD ones whose dead letter was discarded) with their audit rows and dead letters, DELETED and ENDED tasks with no instance left, superseded task versions, applied commands and operator log rows older than this are deleted by the ticker leader on its own thread, in small batches as fast as AX_RETENTION_MAX_RATE and AX_RETENTION_BUSY_PERCENT allow. 0: nothing is ever deleted.");

  public static final ConfigKey<Integer> RETENTION_BATCH =
      ConfigKey.integer(
          "AX_RETENTION_BATCH",
          500,
          1,
          10_000,
          "Most rows of a kind (instances, with their audit rows and dead letters; tasks; ...) one retention batch deletes, in one transaction: small batches keep each transaction short.");

  public static final ConfigKey<Integer> RETENTION_MAX_RATE =
      ConfigKey.integer(
          "AX_RETENTION_MAX_RATE",
          20_000,
          1,
          10_000_000,
          "Most rows a second retention deletes, averaged over a batch and the pause after it: instances, tasks, versions, commands and operator log rows together (the audit rows and dead letters that go with an instance are not counted, nor the children of a task).");

  public static final ConfigKey<Integer> RETENTION_BUSY_PERCENT =
      ConfigKey.integer(
          "AX_RETENTION_BUSY_PERCENT",
          75,
          1,
          100,
          "Most share of wall time (percent) the retention thread spends in database work while behind; it pauses the rest, so the live pipeline keeps the database's attention.");

  public static final ConfigKey<Integer> BACKFILL_RATE =
      ConfigKey.integer(
          "AX_BACKFILL_RATE",
          50,
          1,
          10_000,
          "Most backfill firings the ticker leader creates a second, every running backfill together (`ax task backfill`): they are due at once, so the pace is what lets other tasks' due work pass between them.");

  public static final ConfigKey<Integer> BACKFILL_MAX_IN_FLIGHT =
      ConfigKey.integer(
          "AX_BACKFILL_MAX_IN_FLIGHT",
          100,
          1,
          10_000,
          "Most firings of one backfill created and not ended yet (waiting, dispatched, running or retrying) with overlap ALLOW_ALL or SKIP; the next are created as these end. BUFFER_ONE and BUFFER_ALL backfills have one at a time.");

  /** For the {@link java.util.ServiceLoader} only. */
  public TickerKeys() {}
}
