package dev.ax.common.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.model.Trigger;
import dev.ax.common.time.SaturatingMillis;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FireTimesTest {

  private static final Instant ACCEPTED = Instant.parse("2026-06-01T10:00:00.250Z");

  private final FireTimes fireTimes = new FireTimes();

  @Test
  void onceFiresAtItsInstantOrAfterItsDelay() {
    Instant at = Instant.parse("2026-06-02T00:00:00Z");

    assertThat(fireTimes.first(Trigger.Once.at(at), ACCEPTED)).contains(at);
    assertThat(fireTimes.first(Trigger.Once.after(Duration.ofMinutes(5)), ACCEPTED))
        .contains(ACCEPTED.plus(Duration.ofMinutes(5)));
    // In the past: still its instant; the caller fires it late.
    assertThat(fireTimes.first(Trigger.Once.at(at), at.plusSeconds(60))).contains(at);
    assertThat(fireTimes.nextAfter(Trigger.Once.at(at), ACCEPTED, at.minusMillis(1))).contains(at);
    assertThat(fireTimes.nextAfter(Trigger.Once.at(at), ACCEPTED, at)).isEmpty();
  }

  @Test
  void cronFiresFirstStrictlyAfterTheAcceptance() {
    Trigger.Cron cron = new Trigger.Cron("0 0 * * * ?", ZoneOffset.UTC);

    assertThat(fireTimes.first(cron, ACCEPTED)).contains(Instant.parse("2026-06-01T11:00:00Z"));
    assertThat(fireTimes.first(cron, Instant.parse("2026-06-01T11:00:00Z")))
        .contains(Instant.parse("2026-06-01T12:00:00Z"));
    assertThat(fireTimes.nextAfter(cron, ACCEPTED, Instant.parse("2026-06-01T12:00:00Z")))
        .contains(Instant.parse("2026-06-01T13:00:00Z"));
  }

  @Test
  void cronInATimeZoneWithTheDstPolicy() {
    Trigger.Cron cron = new Trigger.Cron("0 30 2 * * ?", ZoneId.of("Europe/Berlin"));

    assertThat(fireTimes.nextAfter(cron, ACCEPTED, Instant.parse("2026-03-28T12:00:00Z")))
        .contains(Instant.parse("2026-03-29T01:00:00Z"));
  }

  @Test
  void fixedRateWithoutStartAtStartsAtTheAcceptance() {
    Trigger.FixedRate rate = new Trigger.FixedRate(Duration.ofSeconds(30), null);

    assertThat(fireTimes.first(rate, ACCEPTED)).contains(ACCEPTED);
    assertThat(fireTimes.nextAfter(rate, ACCEPTED, ACCEPTED)).contains(ACCEPTED.plusSeconds(30));
    // A late look still lands on the grid.
    assertThat(fireTimes.nextAfter(rate, ACCEPTED, ACCEPTED.plusSeconds(95)))
        .contains(ACCEPTED.plusSeconds(120));
    // Any earlier fire time works as the origin: same grid.
    assertThat(fireTimes.nextAfter(rate, ACCEPTED.plusSeconds(60), ACCEPTED.plusSeconds(95)))
        .contains(ACCEPTED.plusSeconds(120));
  }

  @Test
  void fixedRateWithStartAt() {
    Instant start = Instant.parse("2026-06-01T12:00:00Z");
    Trigger.FixedRate rate = new Trigger.FixedRate(Duration.ofMinutes(15), start);

    assertThat(fireTimes.first(rate, ACCEPTED)).contains(start);
    // Accepted after startAt: the first grid slot at or after the acceptance, not the past ones.
    assertThat(fireTimes.first(rate, start.plus(Duration.ofMinutes(20))))
        .contains(start.plus(Duration.ofMinutes(30)));
    assertThat(fireTimes.first(rate, start.plus(Duration.ofMinutes(30))))
        .contains(start.plus(Duration.ofMinutes(30)));
    assertThat(fireTimes.nextAfter(rate, ACCEPTED, start.plus(Duration.ofDays(365))))
        .contains(start.plus(Duration.ofDays(365)).plus(Duration.ofMinutes(15)));
  }

  @Test
  void fixedDelayCountsFromTheEndOfThePreviousRun() {
    Trigger.FixedDelay delay = new Trigger.FixedDelay(Duration.ofSeconds(10), null);
    Instant first = fireTimes.first(delay, ACCEPTED).orElseThrow();
    assertThat(first).isEqualTo(ACCEPTED);

    // Runs of 1 s, 7 s, 0 s: each next firing is 10 s after the previous run ended.
    List<Instant> firings = new ArrayList<>(List.of(first));
    for (long runSeconds : new long[] {1, 7, 0}) {
      Instant runEnd = firings.get(firings.size() - 1).plusSeconds(runSeconds);
      firings.add(fireTimes.afterRunEnded(delay, runEnd));
    }

    assertThat(firings)
        .containsExactly(
            ACCEPTED, ACCEPTED.plusSeconds(11), ACCEPTED.plusSeconds(28), ACCEPTED.plusSeconds(38));
  }

  @Test
  void fixedDelayStartsAtStartAtUnlessItIsPast() {
    Instant future = ACCEPTED.plusSeconds(3_600);

    assertThat(fireTimes.first(new Trigger.FixedDelay(Duration.ofSeconds(1), future), ACCEPTED))
        .contains(future);
    assertThat(
            fireTimes.first(
                new Trigger.FixedDelay(Duration.ofSeconds(1), ACCEPTED.minusSeconds(5)), ACCEPTED))
        .contains(ACCEPTED);
  }

  @Test
  void triggersWithoutSlots() {
    Trigger.Dependency dependency = new Trigger.Dependency(List.of("a"));
    Trigger.FixedDelay delay = new Trigger.FixedDelay(Duration.ofSeconds(1), null);

    assertThat(fireTimes.first(dependency, ACCEPTED)).isEmpty();
    assertThatThrownBy(() -> fireTimes.slots(delay, ACCEPTED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("afterRunEnded");
    assertThatThrownBy(() -> fireTimes.nextAfter(dependency, ACCEPTED, ACCEPTED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("DEPENDENCY");
  }

  @Test
  void parsedCronExpressionsAreCachedAndBounded() {
    FireTimes small = new FireTimes(2);
    Trigger.Cron a = new Trigger.Cron("0 0 * * * ?", ZoneOffset.UTC);

    CronSchedule first = small.cron(a);
    assertThat(small.cron(new Trigger.Cron("0 0 * * * ?", ZoneOffset.UTC))).isSameAs(first);
    assertThat(small.cron(new Trigger.Cron("0 0 * * * ?", ZoneId.of("Europe/Berlin"))))
        .isNotSameAs(first);

    CronCache cache = new CronCache(2);
    cache.get("0 0 * * * ?", ZoneOffset.UTC);
    cache.get("0 1 * * * ?", ZoneOffset.UTC);
    cache.get("0 2 * * * ?", ZoneOffset.UTC);
    assertThat(cache.size()).isEqualTo(2);
  }

  @Test
  void anInvalidCronIsAnIllegalArgument() {
    assertThatThrownBy(() -> fireTimes.cron(new Trigger.Cron("0 0 25 * * ?", ZoneOffset.UTC)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Hour values");
  }

  @Test
  void aOnceBeyondTheFarFutureBoundHasNoFireTime() {
    assertThat(fireTimes.first(Trigger.Once.after(Duration.ofMillis(Long.MAX_VALUE)), ACCEPTED))
        .isEmpty();
    assertThat(fireTimes.first(Trigger.Once.after(Duration.ofSeconds(Long.MAX_VALUE)), ACCEPTED))
        .isEmpty();
    assertThat(fireTimes.first(Trigger.Once.at(Instant.MAX), ACCEPTED)).isEmpty();
    assertThat(fireTimes.nextAfter(Trigger.Once.at(Instant.MAX), ACCEPTED, ACCEPTED)).isEmpty();
    // Just before the bound is still a fire time.
    Instant lastMs = SaturatingMillis.FAR_FUTURE.minusMillis(1);
    assertThat(fireTimes.first(Trigger.Once.at(lastMs), ACCEPTED)).contains(lastMs);
  }

  @Test
  void aFixedRateWithAHugeIntervalFiresOnceThenEnds() {
    Trigger.FixedRate rate = new Trigger.FixedRate(Duration.ofMillis(Long.MAX_VALUE), null);

    Instant first = fireTimes.first(rate, ACCEPTED).orElseThrow();

    assertThat(first).isEqualTo(ACCEPTED);
    assertThat(fireTimes.nextAfter(rate, ACCEPTED, first)).isEmpty();
    assertThat(fireTimes.nextAfter(rate, ACCEPTED, Instant.MAX)).isEmpty();
    assertThat(fireTimes.first(new Trigger.FixedRate(Duration.ofSeconds(1), Instant.MAX), ACCEPTED))
        .isEmpty();
  }

  @Test
  void aFixedDelayWithAHugeIntervalIsParkedAtTheFarFutureBound() {
    Trigger.FixedDelay delay = new Trigger.FixedDelay(Duration.ofMillis(Long.MAX_VALUE), null);

    assertThat(fireTimes.afterRunEnded(delay, ACCEPTED)).isEqualTo(SaturatingMillis.FAR_FUTURE);
    assertThat(FireTimes.afterRunEndedMs(delay, Long.MAX_VALUE))
        .isEqualTo(SaturatingMillis.FAR_FUTURE_MS);
    assertThat(
            FireTimes.afterRunEndedMs(
                new Trigger.FixedDelay(Duration.ofSeconds(Long.MAX_VALUE), null), Long.MIN_VALUE))
        .isEqualTo(SaturatingMillis.FAR_FUTURE_MS);
    assertThat(SaturatingMillis.isNever(FireTimes.afterRunEndedMs(delay, 0))).isTrue();
    assertThat(FireTimes.afterRunEndedMs(new Trigger.FixedDelay(Duration.ofSeconds(10), null), 5))
        .isEqualTo(10_005);
    assertThat(
            fireTimes.first(new Trigger.FixedDelay(Duration.ofSeconds(1), Instant.MAX), ACCEPTED))
        .isEmpty();
  }

  @Test
  void aCronAskedBeyondTheBoundHasNoNextFiring() {
    Trigger.Cron cron = new Trigger.Cron("0 0 * * * ?", ZoneOffset.UTC);

    assertThat(fireTimes.nextAfter(cron, ACCEPTED, Instant.MAX)).isEmpty();
    assertThat(fireTimes.nextAfter(cron, ACCEPTED, Instant.MIN)).isPresent();
  }
}
