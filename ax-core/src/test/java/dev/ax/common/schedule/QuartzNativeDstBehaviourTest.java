package dev.ax.common.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Date;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;
import org.quartz.CronExpression;

/**
 * What Quartz's {@link CronExpression} does by itself when given the task's time zone: the reason
 * {@link CronSchedule} evaluates on a DST-free wall clock and applies its own policy. If a Quartz
 * upgrade changes any of this, re-read the DST section of {@link CronSchedule}'s documentation.
 */
class QuartzNativeDstBehaviourTest {

  private static Instant quartzNext(String expression, String zone, String after) throws Exception {
    CronExpression cron = new CronExpression(expression);
    cron.setTimeZone(TimeZone.getTimeZone(zone));
    return cron.getNextValidTimeAfter(Date.from(Instant.parse(after))).toInstant();
  }

  @Test
  void quartzSkipsAMatchInAGap() throws Exception {
    // Daily 02:30 in Berlin: nothing on the spring-forward day 2026-03-29, next on the 30th.
    assertThat(quartzNext("0 30 2 * * ?", "Europe/Berlin", "2026-03-28T12:00:00Z"))
        .isEqualTo(Instant.parse("2026-03-30T00:30:00Z"));
    // AX: once at 03:00 CEST.
    assertThat(
            CronSchedule.parse("0 30 2 * * ?", ZoneId.of("Europe/Berlin"))
                .nextAfter(Instant.parse("2026-03-28T12:00:00Z")))
        .contains(Instant.parse("2026-03-29T01:00:00Z"));
  }

  @Test
  void quartzFiresAMatchInAnOverlapAtItsSecondOccurrence() throws Exception {
    // Daily 02:30 in Berlin on 2026-10-25: 02:30 CET (01:30Z), not 02:30 CEST (00:30Z).
    assertThat(quartzNext("0 30 2 * * ?", "Europe/Berlin", "2026-10-24T12:00:00Z"))
        .isEqualTo(Instant.parse("2026-10-25T01:30:00Z"));
    // Every minute from 02:57 CEST: Quartz jumps to 02:58 CET, an hour of real time later.
    assertThat(quartzNext("0 * * * * ?", "Europe/Berlin", "2026-10-25T00:57:00Z"))
        .isEqualTo(Instant.parse("2026-10-25T01:58:00Z"));
    // AX: the first occurrence, and the next minute.
    ZoneId berlin = ZoneId.of("Europe/Berlin");
    assertThat(
            CronSchedule.parse("0 30 2 * * ?", berlin)
                .nextAfter(Instant.parse("2026-10-24T12:00:00Z")))
        .contains(Instant.parse("2026-10-25T00:30:00Z"));
    assertThat(
            CronSchedule.parse("0 * * * * ?", berlin)
                .nextAfter(Instant.parse("2026-10-25T00:57:00Z")))
        .contains(Instant.parse("2026-10-25T00:58:00Z"));
  }
}
