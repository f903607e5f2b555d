package dev.ax.ticker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.ConfigException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TickerConfigTest {

  private static TickerConfig read(Map<String, String> env) {
    return TickerConfig.from(AxConfig.load(Map.of(), Map.of(), env));
  }

  @Test
  void eachValueComesFromTheKeyOfItsName() {
    TickerConfig config = read(Map.of("AX_TICKER_LEASE", "20s", "AX_TICKER_HEARTBEAT", "3s"));

    assertThat(config.lease()).isEqualTo(Duration.ofSeconds(20));
    assertThat(config.heartbeat()).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void aHeartbeatNotShorterThanTheLeaseIsAConfigurationErrorNamingBothKeys() {
    assertThatThrownBy(() -> read(Map.of("AX_TICKER_LEASE", "5s", "AX_TICKER_HEARTBEAT", "5s")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("AX_TICKER_HEARTBEAT (PT5S) must be shorter than AX_TICKER_LEASE (PT5S)");
  }
}
