package dev.ax.common.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.ScheduleRules;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Jitter: deterministic, within its range, spread over it, never early unless symmetric. */
class JitterTest {

  private static ScheduleRules jitter(long ms, boolean symmetric) {
    return new ScheduleRules(OverlapPolicy.SKIP, null, Duration.ofMillis(ms), symmetric, List.of());
  }

  @Test
  void theSameTaskAndSlotAlwaysGetTheSameDueTime() {
    ScheduleRules rules = jitter(60_000, false);
    for (long slot = 0; slot < 100_000_000L; slot += 997_001L) {
      assertThat(Jitter.dueAtMs("report", slot, rules))
          .isEqualTo(Jitter.dueAtMs("report", slot, rules));
    }
  }

  @Test
  void aFiringIsNeverEarlierThanItsSlotNorLaterThanTheJitter() {
    ScheduleRules rules = jitter(1_000, false);
    Set<Long> offsets = new HashSet<>();
    for (int task = 0; task < 2_000; task++) {
      long offset = Jitter.dueAtMs("t" + task, 1_780_000_000_000L, rules) - 1_780_000_000_000L;
      assertThat(offset).isBetween(0L, 1_000L);
      offsets.add(Math.min(offset / 100, 9));
    }
    // Tasks sharing one slot are spread over the whole range (all ten tenths of it used).
    assertThat(offsets).hasSize(10);
  }

  @Test
  void symmetricJitterMayMoveAFiringEitherWay() {
    ScheduleRules rules = jitter(500, true);
    long earlier = 0;
    for (int task = 0; task < 1_000; task++) {
      long offset = Jitter.dueAtMs("t" + task, 0, rules);
      assertThat(offset).isBetween(-500L, 500L);
      earlier += offset < 0 ? 1 : 0;
    }
    assertThat(earlier).isBetween(300L, 700L);
  }

  @Test
  void noJitterIsTheSlot() {
    assertThat(Jitter.dueAtMs("t", 42, ScheduleRules.DEFAULT)).isEqualTo(42);
    assertThat(Jitter.offsetMs("t", 42, 0, true)).isZero();
    assertThatThrownBy(() -> Jitter.offsetMs("t", 42, -1, false))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aSlotAtTheEdgeOfTimeSaturates() {
    assertThat(Jitter.dueAtMs("t", Long.MAX_VALUE, jitter(3_600_000, false)))
        .isLessThanOrEqualTo(Long.MAX_VALUE);
  }
}
