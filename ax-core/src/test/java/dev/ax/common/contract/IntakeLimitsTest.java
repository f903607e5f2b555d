package dev.ax.common.contract;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class IntakeLimitsTest {

  @Test
  void rejectsBoundsThatContradictEachOther() {
    assertThatThrownBy(() -> IntakeLimits.DEFAULTS.withMinInterval(Duration.ofDays(400)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxInterval must be at least minInterval");
    assertThatThrownBy(() -> IntakeLimits.DEFAULTS.withMaxPast(Duration.ofSeconds(-1)))
        .hasMessageContaining("maxPast must not be negative");
    assertThatThrownBy(() -> IntakeLimits.DEFAULTS.withMaxCommandBytes(0))
        .hasMessageContaining("maxCommandBytes must be positive: 0");
  }
}
