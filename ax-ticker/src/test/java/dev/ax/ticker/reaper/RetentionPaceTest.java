package dev.ax.ticker.reaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The pause after a batch: the longer of what the rate cap and the busy cap ask for. */
class RetentionPaceTest {

  private static final Duration IDLE = Duration.ofSeconds(1);

  @Test
  void theBusyCapLeavesTheRestOfTheTimeToTheLivePipeline() {
    RetentionPace pace = new RetentionPace(1_000_000, 75, IDLE);
    // 30 ms of work at 75 %: 10 ms of pause, so 30 of every 40 ms are busy.
    assertThat(pace.pauseAfter(1_000, Duration.ofMillis(30))).isEqualTo(Duration.ofMillis(10));
    assertThat(new RetentionPace(1_000_000, 50, IDLE).pauseAfter(1_000, Duration.ofMillis(30)))
        .isEqualTo(Duration.ofMillis(30));
  }

  @Test
  void theRateCapStretchesAFastBatch() {
    RetentionPace pace = new RetentionPace(20_000, 75, IDLE);
    // 1,000 rows at 20,000/s take 50 ms: 10 ms of work leaves 40 ms of pause.
    assertThat(pace.pauseAfter(1_000, Duration.ofMillis(10))).isEqualTo(Duration.ofMillis(40));
  }

  @Test
  void atFullBusyAndAnUnreachedRateBatchesRunBackToBack() {
    RetentionPace pace = new RetentionPace(20_000, 100, IDLE);
    assertThat(pace.pauseAfter(1_000, Duration.ofMillis(80))).isZero();
    assertThat(pace.pauseAfter(0, Duration.ofMillis(5))).isZero();
  }

  @Test
  void aBatchThatDeletedNothingPausesOnlyForTheBusyCap() {
    RetentionPace pace = new RetentionPace(20_000, 75, IDLE);
    assertThat(pace.pauseAfter(0, Duration.ofMillis(3))).isEqualTo(Duration.ofMillis(1));
    assertThat(pace.pauseAfter(0, Duration.ofMillis(-1))).as("a clock step back").isZero();
  }

  @Test
  void refusesCapsOutOfRange() {
    assertThatThrownBy(() -> new RetentionPace(0, 75, IDLE)).hasMessageContaining(": 0");
    assertThatThrownBy(() -> new RetentionPace(10, 0, IDLE)).hasMessageContaining(": 0");
    assertThatThrownBy(() -> new RetentionPace(10, 101, IDLE)).hasMessageContaining(": 101");
  }
}
