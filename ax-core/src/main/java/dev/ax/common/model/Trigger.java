package dev.ax.common.model;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;

/**
 * When a task fires. One sealed family, one record per trigger type; the JSON form is in {@code
 * schema/task-command.schema.json}.
 */
public sealed interface Trigger {

  TriggerType type();

  /** Fires once: at {@code at} if set, otherwise {@code delay} after the command was accepted. */
  record Once(Instant at, Duration delay) implements Trigger {
    public Once {
      if ((at == null) == (delay == null)) {
        throw new IllegalArgumentException("ONCE needs exactly one of at and delay");
      }
      if (delay != null && delay.isNegative()) {
        throw new IllegalArgumentException("delay must not be negative: " + delay);
      }
    }

    public static Once after(Duration delay) {
      return new Once(null, delay);
    }

    public static Once at(Instant at) {
      return new Once(at, null);
    }

    @Override
    public TriggerType type() {
      return TriggerType.ONCE;
    }
  }

  /**
   * Quartz cron syntax with seconds, evaluated in {@code zone}; no slot before {@code startAt} or
   * after {@code endAt} (either may be null: unbounded).
   */
  record Cron(String expression, ZoneId zone, Instant startAt, Instant endAt) implements Trigger {
    public Cron {
      Objects.requireNonNull(expression, "expression");
      Objects.requireNonNull(zone, "zone");
      requireOrdered(startAt, endAt);
    }

    public Cron(String expression, ZoneId zone) {
      this(expression, zone, null, null);
    }

    @Override
    public TriggerType type() {
      return TriggerType.CRON;
    }
  }

  /**
   * Fires every {@code interval} on the grid from {@code startAt} (the acceptance when null); no
   * slot after {@code endAt} (null: unbounded).
   */
  record FixedRate(Duration interval, Instant startAt, Instant endAt) implements Trigger {
    public FixedRate {
      requirePositive(interval);
      requireOrdered(startAt, endAt);
    }

    public FixedRate(Duration interval, Instant startAt) {
      this(interval, startAt, null);
    }

    @Override
    public TriggerType type() {
      return TriggerType.FIXED_RATE;
    }
  }

  /**
   * Fires {@code interval} after the previous run ended, first at {@code startAt}; never after
   * {@code endAt} (null: unbounded).
   */
  record FixedDelay(Duration interval, Instant startAt, Instant endAt) implements Trigger {
    public FixedDelay {
      requirePositive(interval);
      requireOrdered(startAt, endAt);
    }

    public FixedDelay(Duration interval, Instant startAt) {
      this(interval, startAt, null);
    }

    @Override
    public TriggerType type() {
      return TriggerType.FIXED_DELAY;
    }
  }

  /** Fires when every upstream task's instance of the same flow run ended SUCCESS. */
  record Dependency(List<String> upstreamTaskIds) implements Trigger {
    public Dependency {
      if (upstreamTaskIds == null || upstreamTaskIds.isEmpty()) {
        throw new IllegalArgumentException("DEPENDENCY needs at least one upstream task id");
      }
      upstreamTaskIds = List.copyOf(upstreamTaskIds);
    }

    @Override
    public TriggerType type() {
      return TriggerType.DEPENDENCY;
    }
  }

  /** The end of a periodic trigger's active period, or null: it has none. */
  default Instant endAt() {
    return null;
  }

  private static void requireOrdered(Instant startAt, Instant endAt) {
    if (startAt != null && endAt != null && endAt.isBefore(startAt)) {
      throw new IllegalArgumentException(
          "endAt must not be before startAt: " + endAt + " < " + startAt);
    }
  }

  private static void requirePositive(Duration interval) {
    if (interval == null || interval.isZero() || interval.isNegative()) {
      throw new IllegalArgumentException("interval must be positive: " + interval);
    }
  }
}
