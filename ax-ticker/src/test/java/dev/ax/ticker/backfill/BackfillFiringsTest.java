package dev.ax.ticker.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.schedule.Slots;
import dev.ax.ticker.backfill.BackfillFirings.Live;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * The pure parts of a backfill's step: which slots come next, and what the overlap leaves room for.
 */
class BackfillFiringsTest {

  private static final long T0 = Instant.parse("2026-06-01T12:00:00Z").toEpochMilli();

  @Test
  void theNextSlotsStartAfterTheCursorAndStopAtTheEndOfTheRange() {
    Slots everySecond =
        new FireTimes().slots(new Trigger.Cron("* * * * * ?", ZoneOffset.UTC), Instant.EPOCH);
    assertThat(BackfillFirings.nextSlots(everySecond, T0 - 1, T0 + 10_000, 3))
        .containsExactly(T0, T0 + 1000, T0 + 2000);
    assertThat(BackfillFirings.nextSlots(everySecond, T0 + 8000, T0 + 10_000, 5))
        .containsExactly(T0 + 9000, T0 + 10_000);
    assertThat(BackfillFirings.nextSlots(everySecond, T0 + 10_000, T0 + 10_000, 5)).isEmpty();
  }

  @Test
  void bufferedBackfillsRunOneAfterAnotherAndTheOthersUpToTheirBound() {
    Live idle = new Live(false, 0, 0);
    Live ownRunInFlight = new Live(true, 1, 0);
    Live scheduleRunInFlight = new Live(true, 0, 0);
    for (OverlapPolicy buffered :
        new OverlapPolicy[] {OverlapPolicy.BUFFER_ONE, OverlapPolicy.BUFFER_ALL}) {
      assertThat(BackfillFirings.room(buffered, idle, 100)).isEqualTo(1);
      assertThat(BackfillFirings.room(buffered, ownRunInFlight, 100)).isZero();
      assertThat(BackfillFirings.room(buffered, scheduleRunInFlight, 100)).isZero();
      assertThat(BackfillFirings.room(buffered, new Live(false, 1, 1), 100)).isZero();
    }
    assertThat(BackfillFirings.room(OverlapPolicy.ALLOW_ALL, new Live(true, 40, 10), 100))
        .isEqualTo(60);
    assertThat(BackfillFirings.room(OverlapPolicy.SKIP, new Live(true, 100, 0), 100)).isZero();
    assertThat(BackfillFirings.room(OverlapPolicy.ALLOW_ALL, scheduleRunInFlight, 5)).isEqualTo(5);
  }
}
