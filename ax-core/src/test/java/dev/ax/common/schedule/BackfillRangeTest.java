package dev.ax.common.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.Trigger;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The checks of a backfill request, its default overlap and its firings' ids. */
class BackfillRangeTest {

  private static final FireTimes FIRE_TIMES = new FireTimes();
  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  private static final Trigger EVERY_SECOND = new Trigger.Cron("* * * * * ?", ZoneOffset.UTC);

  private static BackfillRange.Outcome check(
      Trigger trigger, String from, String to, OverlapPolicy asked) {
    return BackfillRange.check(
        "t",
        trigger,
        OverlapPolicy.SKIP,
        NOW,
        Instant.parse(from),
        Instant.parse(to),
        asked,
        NOW,
        FIRE_TIMES);
  }

  private static BackfillRange accepted(BackfillRange.Outcome outcome) {
    assertThat(outcome).isInstanceOf(BackfillRange.Accepted.class);
    return ((BackfillRange.Accepted) outcome).range();
  }

  private static String refused(BackfillRange.Outcome outcome) {
    assertThat(outcome).isInstanceOf(BackfillRange.Refused.class);
    return ((BackfillRange.Refused) outcome).reason();
  }

  @Test
  void bothEndsAreInclusiveAndTheCountIsTheSlotsBetween() {
    BackfillRange range =
        accepted(check(EVERY_SECOND, "2026-03-01T11:00:00Z", "2026-03-01T11:00:29Z", null));
    assertThat(range.firings()).isEqualTo(30);
    assertThat(range.fromMs()).isEqualTo(Instant.parse("2026-03-01T11:00:00Z").toEpochMilli());
  }

  @Test
  void aFixedRateCountsOnItsGrid() {
    Trigger every10s = new Trigger.FixedRate(Duration.ofSeconds(10), null);
    // The grid runs through NOW (the origin given): slots at :00, :10, ..., 11:01:00 is 7.
    BackfillRange range =
        accepted(check(every10s, "2026-03-01T11:00:00Z", "2026-03-01T11:01:00Z", null));
    assertThat(range.firings()).isEqualTo(7);
  }

  @Test
  void aRangeEndingInTheFutureIsClampedToNow() {
    BackfillRange range =
        accepted(check(EVERY_SECOND, "2026-03-01T11:59:50Z", "2026-03-01T13:00:00Z", null));
    assertThat(range.toMs()).isEqualTo(NOW.toEpochMilli());
    assertThat(range.firings()).isEqualTo(11);
  }

  @Test
  void refusesWhatIsNoBackfill() {
    assertThat(
            refused(
                check(
                    Trigger.Once.at(NOW.minusSeconds(60)),
                    "2026-03-01T11:00:00Z",
                    "2026-03-01T11:01:00Z",
                    null)))
        .isEqualTo("task t is a ONCE task: only CRON and FIXED_RATE tasks have slots to backfill");
    assertThat(refused(check(EVERY_SECOND, "2026-03-01T13:00:00Z", "2026-03-01T14:00:00Z", null)))
        .startsWith("the range lies in the future");
    assertThat(refused(check(EVERY_SECOND, "2026-03-01T11:00:00Z", "2026-03-01T11:00:00Z", null)))
        .startsWith("the range must start before it ends");
    assertThat(refused(check(EVERY_SECOND, "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z", null)))
        .isEqualTo(
            "the range holds more than 100000 firings of task t: backfill a shorter range at a"
                + " time");
    Trigger daily = new Trigger.Cron("0 0 3 * * ?", ZoneOffset.UTC);
    assertThat(refused(check(daily, "2026-03-01T04:00:00Z", "2026-03-01T05:00:00Z", null)))
        .startsWith("the range from 2026-03-01T04:00:00Z to 2026-03-01T05:00:00Z holds no firing");
    assertThat(
            refused(
                check(
                    EVERY_SECOND,
                    "2026-03-01T11:00:00Z",
                    "2026-03-01T11:01:00Z",
                    OverlapPolicy.CANCEL_OTHER)))
        .startsWith("a backfill never cancels a run");
  }

  @Test
  void theFixedRateCountIsExactBeyondTheBound() {
    Trigger everyMs = new Trigger.FixedRate(Duration.ofMillis(1), null);
    assertThat(refused(check(everyMs, "2026-03-01T11:00:00Z", "2026-03-01T11:10:00Z", null)))
        .contains("(600001)");
  }

  @Test
  void theOverlapIsTheAskedOneOrOneAfterAnotherUnlessTheTaskAllowsOverlap() {
    assertThat(
            accepted(
                    check(
                        EVERY_SECOND,
                        "2026-03-01T11:00:00Z",
                        "2026-03-01T11:01:00Z",
                        OverlapPolicy.SKIP))
                .overlap())
        .isEqualTo(OverlapPolicy.SKIP);
    assertThat(
            accepted(check(EVERY_SECOND, "2026-03-01T11:00:00Z", "2026-03-01T11:01:00Z", null))
                .overlap())
        .isEqualTo(OverlapPolicy.BUFFER_ALL);
    assertThat(BackfillRange.defaultOverlap(OverlapPolicy.ALLOW_ALL))
        .isEqualTo(OverlapPolicy.ALLOW_ALL);
    assertThat(BackfillRange.defaultOverlap(OverlapPolicy.BUFFER_ONE))
        .isEqualTo(OverlapPolicy.BUFFER_ALL);
  }

  @Test
  void aBackfillsFiringIdNamesItsSlotButIsNoSlotId() {
    String id = InstanceIds.backfillOf("billing~report", 1_780_000_000_000L);
    assertThat(id).isEqualTo("billing~report@backfill:1780000000000");
    assertThat(InstanceIds.isBackfillId(id)).isTrue();
    assertThat(InstanceIds.isSlotId(id)).isFalse();
    assertThat(InstanceIds.isBackfillId("report@1780000000000")).isFalse();
    assertThat(InstanceIds.isBackfillId("report@run:backfill:1")).isFalse();
    assertThat(InstanceIds.isBackfillId("report@backfill:")).isFalse();
    assertThat(InstanceIds.isBackfillId("report@backfill:12x")).isFalse();
    assertThat(InstanceIds.backfillOf("x".repeat(128), Long.MAX_VALUE).length())
        .isLessThanOrEqualTo(InstanceIds.MAX_LENGTH);
  }
}
