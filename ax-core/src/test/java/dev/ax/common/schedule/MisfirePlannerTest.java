package dev.ax.common.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.model.MisfirePolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class MisfirePlannerTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** Every 10 s from T0. */
  private static final Slots EVERY_10S = new FixedRateGrid(T0, Duration.ofSeconds(10));

  private final MisfirePlanner planner = new MisfirePlanner(Duration.ofSeconds(5));

  private static Instant t(long seconds) {
    return T0.plusSeconds(seconds);
  }

  private static Firing onTime(Instant slot) {
    return new Firing(slot, slot, Firing.Kind.ON_TIME);
  }

  /** The plan covers the slots through {@code handledThrough}, and the next one is {@code next}. */
  private static void assertHandledThroughThenNext(
      CatchUp plan, Instant handledThrough, Instant next) {
    assertThat(plan.handledThrough()).isEqualTo(handledThrough);
    assertThat(plan.next()).contains(next);
  }

  @Test
  void aSlotJustDueFiresOnTime() {
    CatchUp plan = planner.plan(EVERY_10S, T0, t(12), MisfirePolicy.FIRE_ONCE_NOW, 100);

    assertThat(plan.firings()).containsExactly(onTime(t(10)));
    assertThat(plan.misfired()).isFalse();
    assertHandledThroughThenNext(plan, t(10), t(20));
  }

  @Test
  void nothingDueYet() {
    CatchUp plan = planner.plan(EVERY_10S, T0, t(9), MisfirePolicy.SKIP, 100);

    assertThat(plan.firings()).isEmpty();
    assertThat(plan.missed()).isZero();
    assertHandledThroughThenNext(plan, T0, t(10));
  }

  @Test
  void aSlotExactlyThresholdOldIsStillOnTimeOneMillisecondMoreIsMissed() {
    CatchUp atThreshold = planner.plan(EVERY_10S, T0, t(15), MisfirePolicy.SKIP, 100);
    CatchUp pastThreshold =
        planner.plan(EVERY_10S, T0, t(15).plusMillis(1), MisfirePolicy.SKIP, 100);

    assertThat(atThreshold.firings()).containsExactly(onTime(t(10)));
    assertThat(atThreshold.missed()).isZero();
    assertThat(pastThreshold.firings()).isEmpty();
    assertThat(pastThreshold.missed()).isEqualTo(1);
    assertThat(pastThreshold.dropped()).isEqualTo(1);
    assertThat(pastThreshold.handledThrough()).isEqualTo(t(10));
  }

  @Test
  void fireOnceNowCoalescesTheMissedSlotsUnderTheLatestOne() {
    // An hour down: slots 10 s .. 3590 s missed (359), 3600 s just due.
    Instant now = t(3_602);

    CatchUp plan = planner.plan(EVERY_10S, T0, now, MisfirePolicy.FIRE_ONCE_NOW, 100);

    assertThat(plan.firings())
        .containsExactly(new Firing(t(3_590), now, Firing.Kind.COALESCED), onTime(t(3_600)));
    assertThat(plan.firings().get(0).instanceId("report"))
        .isEqualTo("report@" + t(3_590).toEpochMilli());
    assertThat(plan.missed()).isEqualTo(359);
    assertThat(plan.missedCountExact()).isTrue();
    assertThat(plan.dropped()).isZero();
    assertHandledThroughThenNext(plan, t(3_600), t(3_610));
  }

  @Test
  void skipFiresNoneOfTheMissedAndGoesOnWithTheNextSlot() {
    CatchUp plan = planner.plan(EVERY_10S, T0, t(3_607), MisfirePolicy.SKIP, 100);

    assertThat(plan.firings()).isEmpty();
    assertThat(plan.missed()).isEqualTo(360);
    assertThat(plan.dropped()).isEqualTo(360);
    assertHandledThroughThenNext(plan, t(3_600), t(3_610));
  }

  @Test
  void skipStillFiresTheSlotsJustDue() {
    CatchUp plan = planner.plan(EVERY_10S, T0, t(3_602), MisfirePolicy.SKIP, 100);

    assertThat(plan.firings()).containsExactly(onTime(t(3_600)));
    assertThat(plan.dropped()).isEqualTo(359);
  }

  @Test
  void fireAllFiresEveryMissedSlotOldestFirstDueNow() {
    Instant now = t(65);

    CatchUp plan = planner.plan(EVERY_10S, T0, now, MisfirePolicy.FIRE_ALL, 100);

    assertThat(plan.firings())
        .containsExactly(
            new Firing(t(10), now, Firing.Kind.LATE),
            new Firing(t(20), now, Firing.Kind.LATE),
            new Firing(t(30), now, Firing.Kind.LATE),
            new Firing(t(40), now, Firing.Kind.LATE),
            new Firing(t(50), now, Firing.Kind.LATE),
            onTime(t(60)));
    assertThat(plan.missed()).isEqualTo(5);
    assertThat(plan.dropped()).isZero();
  }

  @Test
  void fireAllKeepsTheNewestMaxFireAllAndCountsTheRestAsDropped() {
    Instant now = t(3_607);

    CatchUp capped = planner.plan(EVERY_10S, T0, now, MisfirePolicy.FIRE_ALL, 10);
    CatchUp exactlyAtCap = planner.plan(EVERY_10S, t(3_500), now, MisfirePolicy.FIRE_ALL, 10);

    assertThat(capped.firings()).extracting(Firing::fireTime).containsExactly(slots(3_510, 3_600));
    assertThat(capped.firings())
        .allMatch(f -> f.kind() == Firing.Kind.LATE && f.dueAt().equals(now));
    assertThat(capped.missed()).isEqualTo(360);
    assertThat(capped.dropped()).isEqualTo(350);
    assertThat(capped.handledThrough()).isEqualTo(t(3_600));

    assertThat(exactlyAtCap.firings()).hasSize(10);
    assertThat(exactlyAtCap.dropped()).isZero();
  }

  @Test
  void aZeroThresholdMakesEverySlotBeforeNowMissed() {
    MisfirePlanner strict = new MisfirePlanner(Duration.ZERO);

    CatchUp plan = strict.plan(EVERY_10S, T0, t(20), MisfirePolicy.FIRE_ONCE_NOW, 100);

    assertThat(plan.firings())
        .containsExactly(new Firing(t(10), t(20), Firing.Kind.COALESCED), onTime(t(20)));
  }

  @Test
  void aClockBehindTheLastHandledSlotOwesNothing() {
    CatchUp plan = planner.plan(EVERY_10S, t(100), t(50), MisfirePolicy.FIRE_ALL, 100);

    assertThat(plan.firings()).isEmpty();
    assertThat(plan.missed()).isZero();
    assertHandledThroughThenNext(plan, t(100), t(110));
  }

  @Test
  void everySecondCronDownForADayIsPlannedWithBoundedWork() {
    CronSchedule everySecond = CronSchedule.parse("* * * * * ?", ZoneOffset.UTC);
    Instant lastHandled = Instant.parse("2026-01-01T00:00:00Z");
    Instant now = Instant.parse("2026-01-02T00:00:00.500Z");

    CatchUp once = planner.plan(everySecond, lastHandled, now, MisfirePolicy.FIRE_ONCE_NOW, 100);
    CatchUp all = planner.plan(everySecond, lastHandled, now, MisfirePolicy.FIRE_ALL, 100);

    // Missed: 00:00:01 .. 23:59:55 (now - 5 s = 23:59:55.5); just due: 23:59:56 .. 00:00:00.
    Instant latestMissed = Instant.parse("2026-01-01T23:59:55Z");
    assertThat(once.firings().get(0))
        .isEqualTo(new Firing(latestMissed, now, Firing.Kind.COALESCED));
    assertThat(once.firings()).hasSize(6);
    assertThat(once.missed()).isEqualTo(MisfirePlanner.MAX_COUNTED_SLOTS);
    assertThat(once.missedCountExact()).isFalse();
    assertHandledThroughThenNext(
        once, Instant.parse("2026-01-02T00:00:00Z"), Instant.parse("2026-01-02T00:00:01Z"));

    List<Firing> late = all.firings().stream().filter(f -> f.kind() == Firing.Kind.LATE).toList();
    assertThat(late).hasSize(100);
    assertThat(late.get(0).fireTime()).isEqualTo(latestMissed.minusSeconds(99));
    assertThat(late.get(99).fireTime()).isEqualTo(latestMissed);
    assertThat(all.dropped()).isEqualTo(MisfirePlanner.MAX_COUNTED_SLOTS - 100);
    assertThat(all.missedCountExact()).isFalse();
  }

  @Test
  void dailyCronDownForTenDays() {
    CronSchedule daily = CronSchedule.parse("0 0 12 * * ?", ZoneOffset.UTC);
    Instant lastHandled = Instant.parse("2026-01-01T12:00:00Z");
    Instant now = Instant.parse("2026-01-11T13:00:00Z");

    CatchUp plan = planner.plan(daily, lastHandled, now, MisfirePolicy.FIRE_ALL, 3);

    assertThat(plan.firings())
        .extracting(Firing::fireTime)
        .containsExactly(
            Instant.parse("2026-01-09T12:00:00Z"),
            Instant.parse("2026-01-10T12:00:00Z"),
            Instant.parse("2026-01-11T12:00:00Z"));
    assertThat(plan.missed()).isEqualTo(10);
    assertThat(plan.missedCountExact()).isTrue();
    assertThat(plan.dropped()).isEqualTo(7);
    assertThat(plan.next()).contains(Instant.parse("2026-01-12T12:00:00Z"));
  }

  @Test
  void cronCatchUpAcrossAFallBackFiresEachWallClockSlotOnce() {
    // Every 20 minutes in Berlin, down from 01:00 CEST to 04:10 CET on 2026-10-25.
    CronSchedule cron = CronSchedule.parse("0 0/20 * * * ?", ZoneId.of("Europe/Berlin"));

    CatchUp plan =
        planner.plan(
            cron,
            Instant.parse("2026-10-24T23:00:00Z"),
            Instant.parse("2026-10-25T03:10:00Z"),
            MisfirePolicy.FIRE_ALL,
            100);

    // 01:20, 01:40, 02:00, 02:20, 02:40 CEST, then 03:00 ... 04:00 CET: 5 + 4.
    assertThat(plan.firings())
        .extracting(Firing::fireTime)
        .containsExactly(
            Instant.parse("2026-10-24T23:20:00Z"),
            Instant.parse("2026-10-24T23:40:00Z"),
            Instant.parse("2026-10-25T00:00:00Z"),
            Instant.parse("2026-10-25T00:20:00Z"),
            Instant.parse("2026-10-25T00:40:00Z"),
            Instant.parse("2026-10-25T02:00:00Z"),
            Instant.parse("2026-10-25T02:20:00Z"),
            Instant.parse("2026-10-25T02:40:00Z"),
            Instant.parse("2026-10-25T03:00:00Z"));
    assertThat(plan.missed()).isEqualTo(9);
  }

  @Test
  void rejectsAnOutOfRangeMaxFireAll() {
    assertThatThrownBy(() -> planner.plan(EVERY_10S, T0, t(100), MisfirePolicy.FIRE_ALL, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxFireAll");
    assertThatThrownBy(() -> new MisfirePlanner(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static Instant[] slots(long fromSeconds, long toSeconds) {
    return LongStream.iterate(fromSeconds, s -> s <= toSeconds, s -> s + 10)
        .mapToObj(MisfirePlannerTest::t)
        .toArray(Instant[]::new);
  }

  @Test
  void aHugeIntervalPlansTheOneSlotAndNoNext() {
    Slots huge = new FixedRateGrid(T0, Duration.ofMillis(Long.MAX_VALUE));

    CatchUp plan = planner.plan(huge, T0.minusMillis(1), t(3_600), MisfirePolicy.FIRE_ALL, 100);

    assertThat(plan.firings()).containsExactly(new Firing(T0, t(3_600), Firing.Kind.LATE));
    assertThat(plan.next()).isEmpty();
  }

  @Test
  void extremeInstantsAndThresholdsDoNotThrow() {
    MisfirePlanner patient = new MisfirePlanner(Duration.ofSeconds(Long.MAX_VALUE));
    Slots huge = new FixedRateGrid(Instant.MIN, Duration.ofMillis(Long.MAX_VALUE));

    CatchUp plan = patient.plan(EVERY_10S, T0, t(30), MisfirePolicy.FIRE_ONCE_NOW, 10);
    assertThat(plan.missed()).isZero();
    assertThat(plan.firings()).hasSize(3);
    for (MisfirePolicy policy : MisfirePolicy.values()) {
      CatchUp far = planner.plan(huge, Instant.MIN, Instant.MAX, policy, 10);
      assertThat(far.next()).isEmpty();
    }
  }
}
