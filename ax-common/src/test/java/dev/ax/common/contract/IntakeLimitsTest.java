package dev.ax.common.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.ConfigKeys;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IntakeLimitsTest {

  @Test
  void theConfigurableBoundsComeFromConfigAndTheRestKeepTheirDefaults() {
    AxConfig config =
        AxConfig.load(Map.of(), Map.of(), Map.of())
            .with(ConfigKeys.MAX_COMMAND_BYTES, "4096")
            .with(ConfigKeys.MAX_HORIZON, "30d")
            .with(ConfigKeys.MAX_PAST, "0s")
            .with(ConfigKeys.MIN_INTERVAL, "5s");

    IntakeLimits limits = IntakeLimits.from(config);

    assertThat(limits.maxCommandBytes()).isEqualTo(4096);
    assertThat(limits.maxHorizon()).isEqualTo(Duration.ofDays(30));
    assertThat(limits.maxPast()).isEqualTo(Duration.ZERO);
    assertThat(limits.minInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(limits.maxBodyBytes()).isEqualTo(IntakeLimits.DEFAULT_MAX_BODY_BYTES);
    assertThat(limits.maxUpstream()).isEqualTo(IntakeLimits.DEFAULT_MAX_UPSTREAM);
  }

  @Test
  void theDefaultConfigGivesTheDefaults() {
    assertThat(IntakeLimits.from(AxConfig.load(Map.of(), Map.of(), Map.of())))
        .isEqualTo(IntakeLimits.DEFAULTS);
  }

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
