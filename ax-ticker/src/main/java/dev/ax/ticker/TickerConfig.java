package dev.ax.ticker;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.ConfigException;
import dev.ax.common.config.ConfigRecords;
import java.time.Duration;

/**
 * The ticker stage's configuration ({@link TickerKeys}), read once by {@link TickerMain} (or the
 * CLI) and handed to {@link TickerStage}, which passes each part its values. Immutable.
 *
 * @param horizon instances due within it are held in memory
 * @param loadInterval how often the next window is loaded
 * @param maxBatch most instances fired (and reaped) in one batch
 * @param maxHeld most instances held in memory
 * @param tick the time wheel's bucket width
 * @param emitAhead instances are marked DISPATCHED and their due events sent this long before due
 * @param wheelSize buckets per level of the wheel
 * @param rescanEvery every this many loads the whole window is read again
 * @param misfireThreshold a periodic firing later than this is a misfire
 * @param lease how long the leader's lease lasts without renewal
 * @param heartbeat how often the lease is renewed or tried for
 * @param reaperInterval how often the reaper runs
 * @param reaperUnclaimedAfter a DISPATCHED instance unclaimed this long is emitted again
 * @param maxTakebacks take-backs of one instance's run before it ends DEAD
 * @param retention finished rows older than this are deleted; zero: never
 * @param retentionBatch most rows of a kind one retention batch deletes
 * @param retentionMaxRate most rows a second retention deletes
 * @param retentionBusyPercent most share of wall time retention spends in database work
 * @param backfillRate most backfill firings created a second
 * @param backfillMaxInFlight most live firings of one backfill (overlap ALLOW_ALL or SKIP)
 */
public record TickerConfig(
    Duration horizon,
    Duration loadInterval,
    int maxBatch,
    int maxHeld,
    Duration tick,
    Duration emitAhead,
    int wheelSize,
    int rescanEvery,
    Duration misfireThreshold,
    Duration lease,
    Duration heartbeat,
    Duration reaperInterval,
    Duration reaperUnclaimedAfter,
    int maxTakebacks,
    Duration retention,
    int retentionBatch,
    int retentionMaxRate,
    int retentionBusyPercent,
    int backfillRate,
    int backfillMaxInFlight) {

  /**
   * @throws ConfigException when the heartbeat is not shorter than the lease: a leader would lose
   *     its lease between two renewals
   */
  public TickerConfig {
    if (heartbeat.compareTo(lease) >= 0) {
      throw new ConfigException(
          TickerKeys.HEARTBEAT.name()
              + " ("
              + heartbeat
              + ") must be shorter than "
              + TickerKeys.LEASE.name()
              + " ("
              + lease
              + ")");
    }
  }

  /**
   * Each component is the value of the {@link TickerKeys} key of its name ({@link ConfigRecords}).
   */
  public static TickerConfig from(AxConfig config) {
    return ConfigRecords.read(config, TickerConfig.class, TickerKeys.class);
  }
}
