package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.config.AxConfig;
import dev.ax.common.contract.IntakeLimits;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IngestConfigTest {

  @Test
  void theConfigurableBoundsComeFromConfigAndTheRestKeepTheirDefaults() {
    AxConfig config =
        AxConfig.load(Map.of(), Map.of(), Map.of())
            .with(IngestKeys.MAX_COMMAND_BYTES, "4096")
            .with(IngestKeys.MAX_HORIZON, "30d")
            .with(IngestKeys.MAX_PAST, "0s")
            .with(IngestKeys.MIN_INTERVAL, "5s");

    IntakeLimits limits = IngestConfig.from(config).intakeLimits();

    assertThat(limits.maxCommandBytes()).isEqualTo(4096);
    assertThat(limits.maxHorizon()).isEqualTo(Duration.ofDays(30));
    assertThat(limits.maxPast()).isEqualTo(Duration.ZERO);
    assertThat(limits.minInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(limits.maxBodyBytes()).isEqualTo(IntakeLimits.DEFAULT_MAX_BODY_BYTES);
    assertThat(limits.maxUpstream()).isEqualTo(IntakeLimits.DEFAULT_MAX_UPSTREAM);
  }

  @Test
  void theDefaultConfigGivesTheDefaultLimits() {
    IngestConfig config = IngestConfig.from(AxConfig.load(Map.of(), Map.of(), Map.of()));

    assertThat(config.intakeLimits()).isEqualTo(IntakeLimits.DEFAULTS);
    assertThat(config.defaultTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(config.dependencyRepublish()).isEqualTo(Duration.ofSeconds(60));
  }
}
