package dev.ax.common.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FixedRateGridTest {

  private static final Instant ORIGIN = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void slotsAreOriginPlusMultiplesOfTheInterval() {
    FixedRateGrid grid = new FixedRateGrid(ORIGIN, Duration.ofSeconds(10));

    assertThat(grid.nextAfter(ORIGIN.minusSeconds(100))).contains(ORIGIN);
    assertThat(grid.nextAfter(ORIGIN.minusMillis(1))).contains(ORIGIN);
    assertThat(grid.nextAfter(ORIGIN)).contains(ORIGIN.plusSeconds(10));
    assertThat(grid.nextAfter(ORIGIN.plusMillis(9_999))).contains(ORIGIN.plusSeconds(10));
    assertThat(grid.nextAfter(ORIGIN.plusSeconds(10))).contains(ORIGIN.plusSeconds(20));
  }

  @Test
  void chainingNextNeverDriftsOverAMillionSlots() {
    Duration interval = Duration.ofMillis(333); // 1/3 s, not a divisor of a second
    FixedRateGrid grid = new FixedRateGrid(ORIGIN, interval);

    Instant cursor = ORIGIN;
    for (int k = 1; k <= 1_000_000; k++) {
      // A late ticker asks a bit after the slot, as it would in production.
      cursor = grid.nextAfter(cursor.plusMillis(k % 300)).orElseThrow();
      assertThat(cursor.toEpochMilli()).isEqualTo(ORIGIN.toEpochMilli() + k * 333L);
    }
  }

  @Test
  void farFutureSlotsAreExactWithoutDrift() {
    FixedRateGrid grid = new FixedRateGrid(ORIGIN, Duration.ofMillis(7_777));
    Instant in100Years = ORIGIN.plus(Duration.ofDays(36_525));

    Instant next = grid.nextAfter(in100Years).orElseThrow();

    long offsetMs = next.toEpochMilli() - ORIGIN.toEpochMilli();
    assertThat(offsetMs % 7_777).isZero();
    assertThat(next).isAfter(in100Years);
    assertThat(next.minusMillis(7_777)).isBeforeOrEqualTo(in100Years);
  }

  @Test
  void aDayIntervalIsTwentyFourHoursWhateverTheWallClock() {
    FixedRateGrid grid =
        new FixedRateGrid(Instant.parse("2026-03-28T01:30:00Z"), Duration.ofDays(1));

    // Across Berlin's spring forward: still 24 h apart in real time.
    assertThat(grid.nextAfter(Instant.parse("2026-03-28T01:30:00Z")))
        .contains(Instant.parse("2026-03-29T01:30:00Z"));
  }

  @Test
  void rangeQuestions() {
    FixedRateGrid grid = new FixedRateGrid(ORIGIN, Duration.ofSeconds(10));
    Instant t10 = ORIGIN.plusSeconds(10);
    Instant t50 = ORIGIN.plusSeconds(50);

    assertThat(grid.latestIn(ORIGIN, t50)).contains(t50);
    assertThat(grid.latestIn(ORIGIN, t50.minusMillis(1))).contains(ORIGIN.plusSeconds(40));
    assertThat(grid.latestIn(t50, t50.plusSeconds(9))).isEmpty();
    assertThat(grid.latestIn(ORIGIN.minusSeconds(60), ORIGIN.minusSeconds(1))).isEmpty();
    assertThat(grid.count(ORIGIN, t50, 2)).isEqualTo(new SlotCount(5, true));
    assertThat(grid.count(ORIGIN.minusMillis(1), t50, 100)).isEqualTo(new SlotCount(6, true));
    assertThat(grid.count(t50, t10, 100)).isEqualTo(new SlotCount(0, true));
    assertThat(grid.newest(2, ORIGIN, t50)).containsExactly(ORIGIN.plusSeconds(40), t50);
    assertThat(grid.newest(10, t10, t50))
        .containsExactly(
            ORIGIN.plusSeconds(20), ORIGIN.plusSeconds(30), ORIGIN.plusSeconds(40), t50);
    assertThat(grid.newest(3, t50, t50)).isEmpty();
  }

  @Test
  void rejectsIntervalsBelowOneMillisecond() {
    assertThatThrownBy(() -> new FixedRateGrid(ORIGIN, Duration.ofNanos(999_999)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1 ms");
  }

  /** The generic search (used for cron) agrees with the grid's closed forms. */
  @Test
  void slotSearchAgreesWithTheClosedForms() {
    Random random = new Random(42);
    for (int round = 0; round < 300; round++) {
      FixedRateGrid grid =
          new FixedRateGrid(ORIGIN, Duration.ofMillis(1 + random.nextInt(100_000)));
      Instant floor = ORIGIN.plusMillis(random.nextInt(50_000_000) - 1_000_000);
      Instant ceiling = floor.plusMillis(random.nextInt(20_000_000));
      int n = 1 + random.nextInt(20);

      Optional<Instant> latest = SlotSearch.latestIn(grid::nextAfter, floor, ceiling);
      SlotCount count = SlotSearch.count(grid::nextAfter, floor, ceiling, 1_000_000);
      List<Instant> newest = SlotSearch.newest(grid::nextAfter, n, floor, ceiling);

      assertThat(latest).isEqualTo(grid.latestIn(floor, ceiling));
      assertThat(count).isEqualTo(grid.count(floor, ceiling, 1_000_000));
      assertThat(newest).isEqualTo(grid.newest(n, floor, ceiling));
    }
  }

  @Test
  void slotSearchCountStopsAtTheLimit() {
    FixedRateGrid grid = new FixedRateGrid(ORIGIN, Duration.ofSeconds(1));

    assertThat(SlotSearch.count(grid::nextAfter, ORIGIN, ORIGIN.plusSeconds(100), 10))
        .isEqualTo(new SlotCount(10, false));
    assertThat(SlotSearch.count(grid::nextAfter, ORIGIN, ORIGIN.plusSeconds(10), 10))
        .isEqualTo(new SlotCount(10, true));
  }

  @Test
  void aSlotBeyondTheFarFutureBoundDoesNotExist() {
    FixedRateGrid grid = new FixedRateGrid(ORIGIN, Duration.ofMillis(Long.MAX_VALUE));

    assertThat(grid.nextAfter(ORIGIN.minusMillis(1))).contains(ORIGIN);
    assertThat(grid.nextAfter(ORIGIN)).isEmpty();
    assertThat(grid.nextAfter(Instant.MAX)).isEmpty();
    assertThat(grid.latestIn(ORIGIN.minusMillis(1), Instant.MAX)).contains(ORIGIN);
    assertThat(grid.count(ORIGIN.minusMillis(1), Instant.MAX, 10).count()).isEqualTo(1);
    assertThat(grid.newest(5, Instant.MIN, Instant.MAX)).containsExactly(ORIGIN);
  }

  @Test
  void hugeIntervalsAndExtremeInstantsNeverThrow() {
    for (Duration interval :
        List.of(
            Duration.ofMillis(Long.MAX_VALUE),
            Duration.ofMillis(Long.MAX_VALUE - 1),
            Duration.ofSeconds(Long.MAX_VALUE),
            Duration.ofDays(365L * 5_000))) {
      for (Instant origin : List.of(ORIGIN, Instant.MIN, Instant.MAX, Instant.EPOCH)) {
        FixedRateGrid grid = new FixedRateGrid(origin, interval);
        for (Instant t : List.of(Instant.MIN, ORIGIN, Instant.MAX)) {
          grid.nextAfter(t).ifPresent(s -> assertThat(s).isAfter(t));
          grid.latestIn(Instant.MIN, t);
          grid.count(Instant.MIN, t, 100);
          assertThat(grid.newest(3, Instant.MIN, t)).hasSizeLessThanOrEqualTo(3);
        }
      }
    }
  }

  @Test
  void anOriginBeyondTheBoundHasNoSlots() {
    FixedRateGrid grid = new FixedRateGrid(Instant.MAX, Duration.ofSeconds(1));

    assertThat(grid.nextAfter(ORIGIN)).isEmpty();
  }
}
