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

  /** Quartz cron syntax with seconds, evaluated in {@code zone}. */
  record Cron(String expression, ZoneId zone) implements Trigger {
    public Cron {
      Objects.requireNonNull(expression, "expression");
      Objects.requireNonNull(zone, "zone");
    }

    @Override
    public TriggerType type() {
      return TriggerType.CRON;
    }
  }

  /** Fires every {@code interval}, counted from the previous due time. */
  record FixedRate(Duration interval, Instant startAt) implements Trigger {
    public FixedRate {
      requirePositive(interval);
    }

    @Override
    public TriggerType type() {
      return TriggerType.FIXED_RATE;
    }
  }

  /** Fires {@code interval} after the previous run ended. */
  record FixedDelay(Duration interval, Instant startAt) implements Trigger {
    public FixedDelay {
      requirePositive(interval);
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

  private static void requirePositive(Duration interval) {
    if (interval == null || interval.isZero() || interval.isNegative()) {
      throw new IllegalArgumentException("interval must be positive: " + interval);
    }
  }
}
