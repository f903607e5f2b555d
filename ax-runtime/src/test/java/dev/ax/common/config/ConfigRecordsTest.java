package dev.ax.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigRecordsTest {

  record Timing(Duration shutdownGrace, Duration switchPoll, int topicPartitions) {}

  record Unknown(Duration shutdownGrace, int noSuchKey) {}

  record WrongType(String topicPartitions) {}

  private final AxConfig config =
      AxConfig.load(Map.of(), Map.of(), Map.of("AX_TOPIC_PARTITIONS", "4"));

  @Test
  void eachComponentGetsTheKeyOfItsName() {
    assertThat(ConfigRecords.read(config, Timing.class, CommonKeys.class))
        .isEqualTo(new Timing(Duration.ofSeconds(30), Duration.ofSeconds(2), 4));
  }

  @Test
  void aComponentWithoutItsKeyOrOfAnotherTypeIsAProgrammingError() {
    assertThatThrownBy(() -> ConfigRecords.read(config, Unknown.class, CommonKeys.class))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Unknown.noSuchKey has no key CommonKeys.NO_SUCH_KEY");
    assertThatThrownBy(() -> ConfigRecords.read(config, WrongType.class, CommonKeys.class))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("WrongType.topicPartitions is a String");
  }

  @Test
  void constantNamesAreTheComponentNamesInUpperSnakeCase() {
    assertThat(ConfigRecords.constantName("reaperUnclaimedAfter"))
        .isEqualTo("REAPER_UNCLAIMED_AFTER");
    assertThat(ConfigRecords.constantName("lease")).isEqualTo("LEASE");
  }
}
