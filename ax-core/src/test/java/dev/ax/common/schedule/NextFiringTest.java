package dev.ax.common.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerType;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The first firing after an UPDATE: the new schedule's next slot, never an extra run. */
class NextFiringTest {

  /** A whole minute. */
  private static final long T0_MS = 1_900_000_020_000L;

  private final NextFiring firings = new NextFiring(new FireTimes());

  @Test
  void cronFiresAfterNowAndAfterTheLastSlotThatFired() {
    Trigger every2s = new Trigger.Cron("0/2 * * * * ?", ZoneOffset.UTC);
    NextFiring.History firedAhead =
        new NextFiring.History(T0_MS - 60_000, T0_MS + 4_000, null, true, TriggerType.CRON);

    assertThat(
            firings.firstDueAtMs(
                every2s, T0_MS + 1_000, NextFiring.History.fresh(T0_MS, TriggerType.CRON)))
        .contains(T0_MS + 2_000);
    assertThat(firings.firstDueAtMs(every2s, T0_MS + 3_990, firedAhead))
        .as("the slot fired ahead of its time is not fired again")
        .contains(T0_MS + 6_000);
  }

  @Test
  void fixedRateKeepsThePhaseOfItsLastFiringUnlessStartAtIsGiven() {
    NextFiring.History fired =
        new NextFiring.History(
            T0_MS - 10_000, T0_MS - 250, T0_MS - 200, false, TriggerType.FIXED_RATE);

    assertThat(
            firings.firstDueAtMs(
                new Trigger.FixedRate(Duration.ofSeconds(3), null), T0_MS + 400, fired))
        .contains(T0_MS + 2_750);
    assertThat(
            firings.firstDueAtMs(
                new Trigger.FixedRate(Duration.ofSeconds(3), Instant.ofEpochMilli(T0_MS)),
                T0_MS + 400,
                fired))
        .contains(T0_MS + 3_000);
  }

  @Test
  void fixedDelayWaitsForTheRunInFlightOrCountsFromTheLastEnd() {
    Trigger.FixedDelay every5s = new Trigger.FixedDelay(Duration.ofSeconds(5), null);

    assertThat(
            firings.firstDueAtMs(
                every5s,
                T0_MS,
                new NextFiring.History(
                    T0_MS - 9_000, T0_MS - 1_000, null, true, TriggerType.FIXED_DELAY)))
        .isEmpty();
    assertThat(
            firings.firstDueAtMs(
                every5s,
                T0_MS,
                new NextFiring.History(T0_MS - 9_000, T0_MS - 1_000, null, true, TriggerType.CRON)))
        .as("the run in flight was a CRON one: no chainer follows it")
        .contains(T0_MS + 5_000);
    assertThat(
            firings.firstDueAtMs(
                every5s,
                T0_MS,
                new NextFiring.History(
                    T0_MS - 9_000, T0_MS - 4_000, T0_MS - 3_000, false, TriggerType.FIXED_DELAY)))
        .contains(T0_MS + 2_000);
    assertThat(
            firings.firstDueAtMs(
                every5s,
                T0_MS,
                new NextFiring.History(
                    T0_MS - 90_000,
                    T0_MS - 80_000,
                    T0_MS - 60_000,
                    false,
                    TriggerType.FIXED_DELAY)))
        .as("owed since long ago: fires at once, under the id the chainer would give it")
        .contains(T0_MS - 55_000);
  }

  @Test
  void aOnceTaskFiresOnceCountedFromItsAcceptance() {
    Trigger in5s = Trigger.Once.after(Duration.ofSeconds(5));

    assertThat(
            firings.firstDueAtMs(
                in5s, T0_MS + 2_000, NextFiring.History.fresh(T0_MS, TriggerType.ONCE)))
        .contains(T0_MS + 5_000);
    assertThat(
            firings.firstDueAtMs(
                in5s,
                T0_MS + 9_000,
                new NextFiring.History(
                    T0_MS, T0_MS + 8_000, T0_MS + 8_100, false, TriggerType.CRON)))
        .as("a CRON task made ONCE fires once, the delay counted from the UPDATE")
        .contains(T0_MS + 14_000);
    assertThat(
            firings.firstDueAtMs(
                in5s,
                T0_MS + 9_000,
                new NextFiring.History(
                    T0_MS, T0_MS + 5_000, T0_MS + 5_100, false, TriggerType.ONCE)))
        .as("it ran: an UPDATE does not run it again")
        .isEmpty();
    assertThat(NextFiring.neverFires(in5s)).isFalse();
  }
}
