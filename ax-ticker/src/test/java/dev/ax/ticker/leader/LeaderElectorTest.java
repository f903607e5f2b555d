package dev.ax.ticker.leader;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeaderElectorTest {

  private static final Duration HEARTBEAT = Duration.ofSeconds(1);

  @Test
  void heartbeatsStartOneHeartbeatApartWhateverEachTook() {
    assertThat(LeaderElector.waitAfterNanos(HEARTBEAT, Duration.ofMillis(5).toNanos()))
        .isEqualTo(Duration.ofMillis(995).toNanos());
    assertThat(LeaderElector.waitAfterNanos(HEARTBEAT, Duration.ofMillis(700).toNanos()))
        .isEqualTo(Duration.ofMillis(300).toNanos());
  }

  @Test
  void aStepSlowerThanAHeartbeatIsFollowedAtOnce() {
    // After a 1.07 s acquisition the fence ends 0.93 s later: a whole heartbeat's wait would
    // outlast it.
    assertThat(LeaderElector.waitAfterNanos(HEARTBEAT, Duration.ofMillis(1070).toNanos())).isZero();
  }
}
