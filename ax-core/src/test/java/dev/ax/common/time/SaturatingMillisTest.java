package dev.ax.common.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SaturatingMillisTest {

  @Test
  void addAndSubtractSaturateInsteadOfWrapping() {
    assertThat(SaturatingMillis.add(1, 2)).isEqualTo(3);
    assertThat(SaturatingMillis.add(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
    assertThat(SaturatingMillis.add(Long.MAX_VALUE, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(SaturatingMillis.add(Long.MIN_VALUE, -1)).isEqualTo(Long.MIN_VALUE);
    assertThat(SaturatingMillis.add(Long.MIN_VALUE, Long.MAX_VALUE)).isEqualTo(-1);
    assertThat(SaturatingMillis.subtract(Long.MIN_VALUE, 1)).isEqualTo(Long.MIN_VALUE);
    assertThat(SaturatingMillis.subtract(Long.MAX_VALUE, Long.MIN_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(SaturatingMillis.subtract(0, Long.MIN_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(SaturatingMillis.subtract(-1, Long.MIN_VALUE)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void multiplySaturatesWithTheSignOfTheTrueProduct() {
    assertThat(SaturatingMillis.multiply(3, 4)).isEqualTo(12);
    assertThat(SaturatingMillis.multiply(-3, 4)).isEqualTo(-12);
    assertThat(SaturatingMillis.multiply(Long.MAX_VALUE, 2)).isEqualTo(Long.MAX_VALUE);
    assertThat(SaturatingMillis.multiply(Long.MAX_VALUE, -2)).isEqualTo(Long.MIN_VALUE);
    assertThat(SaturatingMillis.multiply(Long.MIN_VALUE, -1)).isEqualTo(Long.MAX_VALUE);
    assertThat(SaturatingMillis.multiply(1L << 62, 1L << 62)).isEqualTo(Long.MAX_VALUE);
    assertThat(SaturatingMillis.multiply(Long.MIN_VALUE, 1)).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void toMillisSaturatesWhereDurationThrows() {
    assertThat(SaturatingMillis.toMillis(Duration.ofSeconds(Long.MAX_VALUE)))
        .isEqualTo(Long.MAX_VALUE);
    assertThat(SaturatingMillis.toMillis(Duration.ofSeconds(Long.MIN_VALUE)))
        .isEqualTo(Long.MIN_VALUE);
    assertThat(SaturatingMillis.toMillis(Duration.ofMillis(Long.MAX_VALUE)))
        .isEqualTo(Long.MAX_VALUE);
    assertThat(SaturatingMillis.toMillis(Duration.ofMillis(1234))).isEqualTo(1234);
  }

  @Test
  void pointsInTimeAreClampedToTheFarBounds() {
    assertThat(SaturatingMillis.atMs(1_000, 500)).isEqualTo(1_500);
    assertThat(SaturatingMillis.atMs(1_000, Long.MAX_VALUE))
        .isEqualTo(SaturatingMillis.FAR_FUTURE_MS);
    assertThat(SaturatingMillis.atMs(Long.MAX_VALUE, Long.MAX_VALUE))
        .isEqualTo(SaturatingMillis.FAR_FUTURE_MS);
    assertThat(SaturatingMillis.atMs(Long.MIN_VALUE, -1)).isEqualTo(SaturatingMillis.FAR_PAST_MS);
    assertThat(SaturatingMillis.atMs(0, Duration.ofSeconds(Long.MAX_VALUE)))
        .isEqualTo(SaturatingMillis.FAR_FUTURE_MS);
    assertThat(SaturatingMillis.plus(Instant.MAX, Duration.ofSeconds(Long.MAX_VALUE)))
        .isEqualTo(SaturatingMillis.FAR_FUTURE);
    assertThat(SaturatingMillis.plus(Instant.EPOCH, Duration.ofSeconds(Long.MIN_VALUE)))
        .isEqualTo(SaturatingMillis.FAR_PAST);
    assertThat(SaturatingMillis.epochMillis(Instant.MIN)).isEqualTo(SaturatingMillis.FAR_PAST_MS);
    assertThat(SaturatingMillis.FAR_FUTURE).isEqualTo(Instant.parse("9999-12-31T23:59:59.999Z"));
    assertThat(SaturatingMillis.FAR_PAST).isEqualTo(Instant.parse("0001-01-01T00:00:00Z"));
  }

  @Test
  void onlyTheFarFutureBoundAndBeyondAreNever() {
    assertThat(SaturatingMillis.isNever(SaturatingMillis.FAR_FUTURE_MS)).isTrue();
    assertThat(SaturatingMillis.isNever(Long.MAX_VALUE)).isTrue();
    assertThat(SaturatingMillis.isNever(SaturatingMillis.FAR_FUTURE_MS - 1)).isFalse();
  }
}
