package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OutageStreakTest {

  @Test
  void everyThirdOutageInARowGoesOneAtATimeAndTheOthersTryTheWholeBatchAgain() {
    OutageStreak streak = new OutageStreak(3);

    assertThat(streak.oneAtATimeAfter(true)).isFalse();
    assertThat(streak.oneAtATimeAfter(true)).isFalse();
    assertThat(streak.oneAtATimeAfter(true)).isTrue();
    assertThat(streak.oneAtATimeAfter(true)).isFalse();
    assertThat(streak.oneAtATimeAfter(true)).isFalse();
    assertThat(streak.oneAtATimeAfter(true)).isTrue();
    assertThat(streak.inARow()).isEqualTo(6);
  }

  @Test
  void aFailureNotFromAnOutageGoesOneAtATimeAtOnceAndIsNotCounted() {
    OutageStreak streak = new OutageStreak(3);
    streak.oneAtATimeAfter(true);

    assertThat(streak.oneAtATimeAfter(false)).isTrue();
    assertThat(streak.inARow()).isEqualTo(1);
    assertThat(streak.oneAtATimeAfter(true)).isFalse();
    assertThat(streak.oneAtATimeAfter(true)).as("third outage in a row").isTrue();
  }

  @Test
  void aDoneBatchEndsTheStreakAndSaysHowLongItWas() {
    OutageStreak streak = new OutageStreak(3);
    streak.oneAtATimeAfter(true);
    streak.oneAtATimeAfter(true);

    assertThat(streak.end()).isEqualTo(2);
    assertThat(streak.inARow()).isZero();
    assertThat(streak.end()).isZero();
    assertThat(streak.oneAtATimeAfter(true)).isFalse();
  }

  @Test
  void theBoundMustBePositive() {
    assertThatThrownBy(() -> new OutageStreak(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(": 0");
  }
}
