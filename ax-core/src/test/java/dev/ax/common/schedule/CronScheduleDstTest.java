package dev.ax.common.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The DST policy of {@link CronSchedule}: a match in a spring-forward gap fires once at the gap's
 * end; a match in a fall-back overlap fires once, at its first occurrence; no wall-clock time fires
 * twice.
 */
class CronScheduleDstTest {

  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  /** Every firing in {@code (from, to]}. */
  private static List<Instant> firings(String expression, ZoneId zone, String from, String to) {
    return firings(CronSchedule.parse(expression, zone), Instant.parse(from), Instant.parse(to));
  }

  /** Every firing of {@code cron} in {@code (from, to]}. */
  private static List<Instant> firings(CronSchedule cron, Instant from, Instant to) {
    List<Instant> firings = new ArrayList<>();
    for (Instant next = cron.nextAfter(from).orElseThrow();
        !next.isAfter(to);
        next = cron.nextAfter(next).orElseThrow()) {
      firings.add(next);
    }
    return firings;
  }

  /** Every minute of each range, in order: {@code fromInclusive, toInclusive} pairs. */
  private static List<Instant> everyMinute(String... rangesInclusive) {
    List<Instant> minutes = new ArrayList<>();
    for (int i = 0; i < rangesInclusive.length; i += 2) {
      for (Instant t = Instant.parse(rangesInclusive[i]);
          !t.isAfter(Instant.parse(rangesInclusive[i + 1]));
          t = t.plus(Duration.ofMinutes(1))) {
        minutes.add(t);
      }
    }
    return minutes;
  }

  /**
   * Each case: the firings of {@code cron} in {@code zone} in {@code (after, until]} are exactly
   * {@code firesAt}, written in the zone's local time with the offset in force, so a row shows
   * which side of a transition each firing is on.
   *
   * <p>Europe/Berlin: gap 2026-03-29 02:00-03:00 CET->CEST, overlap 2026-10-25 02:00-03:00.
   * America/New_York: gap 2026-03-08 02:00-03:00, overlap 2026-11-01 01:00-02:00. Australia/Sydney
   * (southern hemisphere): overlap 2026-04-05 02:00-03:00, gap 2026-10-04. Pacific/Apia skipped a
   * whole day: from 2011-12-29 24:00 -10:00 to 12-31 00:00 +14:00.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case                                       | cron           | zone             | after                | until                | fires at
          Berlin daily in the gap: once, at its end    | 0 30 2 * * ?   | Europe/Berlin    | 2026-03-28T00:00:00Z | 2026-03-30T23:00:00Z | 2026-03-28T02:30+01:00 2026-03-29T03:00+02:00 2026-03-30T02:30+02:00
          Berlin daily in the overlap: the first 02:30 | 0 30 2 * * ?   | Europe/Berlin    | 2026-10-24T00:00:00Z | 2026-10-26T23:00:00Z | 2026-10-24T02:30+02:00 2026-10-25T02:30+02:00 2026-10-26T02:30+01:00
          Berlin, matches in the gap collapse into one | 0 0/20 2 * * ? | Europe/Berlin    | 2026-03-29T00:00:00Z | 2026-03-30T01:00:00Z | 2026-03-29T03:00+02:00 2026-03-30T02:00+02:00 2026-03-30T02:20+02:00 2026-03-30T02:40+02:00
          Berlin every second across the gap           | * * * * * ?    | Europe/Berlin    | 2026-03-29T00:59:57Z | 2026-03-29T01:00:01Z | 2026-03-29T01:59:58+01:00 2026-03-29T01:59:59+01:00 2026-03-29T03:00:00+02:00 2026-03-29T03:00:01+02:00
          Berlin every second, second pass fires none  | * * * * * ?    | Europe/Berlin    | 2026-10-25T00:59:57Z | 2026-10-25T02:00:01Z | 2026-10-25T02:59:58+02:00 2026-10-25T02:59:59+02:00 2026-10-25T03:00:00+01:00 2026-10-25T03:00:01+01:00
          New York daily in the gap: at its end        | 0 30 2 * * ?   | America/New_York | 2026-03-07T12:00:00Z | 2026-03-09T12:00:00Z | 2026-03-08T03:00-04:00 2026-03-09T02:30-04:00
          New York daily in the overlap: the first one | 0 30 1 * * ?   | America/New_York | 2026-10-31T12:00:00Z | 2026-11-02T12:00:00Z | 2026-11-01T01:30-04:00 2026-11-02T01:30-05:00
          Sydney daily in the overlap: the first one   | 0 30 2 * * ?   | Australia/Sydney | 2026-04-04T00:00:00Z | 2026-04-06T00:00:00Z | 2026-04-05T02:30+11:00 2026-04-06T02:30+10:00
          Sydney daily in the gap: at its end          | 0 30 2 * * ?   | Australia/Sydney | 2026-10-03T00:00:00Z | 2026-10-05T00:00:00Z | 2026-10-04T03:00+11:00 2026-10-05T02:30+11:00
          Apia, a skipped day fires once, at its end   | 0 0 12 * * ?   | Pacific/Apia     | 2011-12-29T00:00:00Z | 2011-12-31T00:00:00Z | 2011-12-29T12:00-10:00 2011-12-31T00:00+14:00 2011-12-31T12:00+14:00
          """)
  void firesExactlyAt(
      String description, String cron, String zone, String after, String until, String firesAt) {
    assertThat(firings(cron, ZoneId.of(zone), after, until))
        .isEqualTo(
            Arrays.stream(firesAt.split(" "))
                .map(local -> OffsetDateTime.parse(local).toInstant())
                .toList());
  }

  @Test
  void berlinReferenceInsideTheOverlapDoesNotFireTheRepeatedTimeAgain() {
    CronSchedule cron = CronSchedule.parse("0 30 2 * * ?", BERLIN);

    // Between the two 02:30s, and in the second pass (02:10 CET): both already past 02:30 CEST.
    CronScheduleTest.assertNextAfter(cron, "2026-10-25T00:45:00Z", "2026-10-26T01:30:00Z");
    CronScheduleTest.assertNextAfter(cron, "2026-10-25T01:10:00Z", "2026-10-26T01:30:00Z");
  }

  /**
   * Each case: an every-minute cron in {@code zone} fires, in {@code (after, until]}, exactly at
   * every minute of the {@code minutes} ranges (pairs of first and last minute, inclusive), each
   * wall-clock minute once. Across a gap the real minutes run on without a hole; across an overlap
   * the ranges are the minutes up to the repeated hour and those after it, whose local times (the
   * repeated hour's second pass) would otherwise repeat the first.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case                      | zone             | after                | until                | minutes                                                                             | count
          Berlin across the gap       | Europe/Berlin    | 2026-03-29T00:55:00Z | 2026-03-29T01:05:00Z | 2026-03-29T00:56:00Z 2026-03-29T01:05:00Z                                           | 10
          Berlin across the overlap   | Europe/Berlin    | 2026-10-24T23:58:00Z | 2026-10-25T02:03:00Z | 2026-10-24T23:59:00Z 2026-10-25T00:59:00Z 2026-10-25T02:00:00Z 2026-10-25T02:03:00Z | 65
          New York across the gap     | America/New_York | 2026-03-08T06:57:00Z | 2026-03-08T07:02:00Z | 2026-03-08T06:58:00Z 2026-03-08T07:02:00Z                                           | 5
          New York across the overlap | America/New_York | 2026-11-01T04:58:00Z | 2026-11-01T07:02:00Z | 2026-11-01T04:59:00Z 2026-11-01T05:59:00Z 2026-11-01T07:00:00Z 2026-11-01T07:02:00Z | 64
          """)
  void everyMinuteFiresEachWallClockMinuteOnce(
      String description, String zone, String after, String until, String minutes, int count) {
    List<Instant> firings = firings("0 * * * * ?", ZoneId.of(zone), after, until);

    assertThat(firings).isEqualTo(everyMinute(minutes.split(" ")));
    assertThat(localTimes(firings, ZoneId.of(zone))).doesNotHaveDuplicates().hasSize(count);
  }

  @Test
  void berlinEverySecondFiresTheRepeatedHourExactlyOnce() {
    List<Instant> firings =
        firings("* * * * * ?", BERLIN, "2026-10-24T23:59:59Z", "2026-10-25T01:59:59Z");

    assertThat(firings).hasSize(3600);
    assertThat(firings.get(0)).isEqualTo(Instant.parse("2026-10-25T00:00:00Z"));
    assertThat(firings.get(3599)).isEqualTo(Instant.parse("2026-10-25T00:59:59Z"));
    assertThat(localTimes(firings, BERLIN)).doesNotHaveDuplicates();
  }

  /**
   * Around every transition of a year, an every-minute cron fires each existing wall-clock minute
   * exactly once, the minutes of a gap exactly once in all (at its end), and real time only moves
   * forward.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "Europe/Berlin",
        "America/New_York",
        "Australia/Sydney",
        "Australia/Lord_Howe",
        "Europe/London"
      })
  void everyMinuteAroundEachTransitionOfTheYear(String zoneName) {
    ZoneId zone = ZoneId.of(zoneName);
    CronSchedule cron = CronSchedule.parse("0 * * * * ?", zone);
    Instant cursor = Instant.parse("2026-01-01T00:00:00Z");
    int transitions = 0;
    for (ZoneOffsetTransition t = zone.getRules().nextTransition(cursor);
        t != null && t.getInstant().isBefore(Instant.parse("2027-01-01T00:00:00Z"));
        t = zone.getRules().nextTransition(t.getInstant())) {
      transitions++;
      Instant from = t.getInstant().minus(Duration.ofHours(3));
      Instant to = t.getInstant().plus(Duration.ofHours(3));
      List<Instant> firings = firings(cron, from, to);

      assertThat(firings).isSorted().doesNotHaveDuplicates();
      List<LocalDateTime> local = localTimes(firings, zone);
      assertThat(local).as("wall-clock minutes fired twice around %s", t).doesNotHaveDuplicates();
      assertThat(local).as("wall clock around %s", t).isSorted();
      // Every wall-clock minute that exists fired; the minutes of a gap fired as one, at its end.
      Set<LocalDateTime> fired = new HashSet<>(local);
      long gapMinutes = 0;
      for (LocalDateTime m = local.get(0);
          !m.isAfter(local.get(local.size() - 1));
          m = m.plusMinutes(1)) {
        if (zone.getRules().getValidOffsets(m).isEmpty()) {
          gapMinutes++;
        } else {
          assertThat(fired).as("minute %s around %s", m, t).contains(m);
        }
      }
      if (t.isGap()) {
        assertThat(gapMinutes).isEqualTo(t.getDuration().toMinutes());
        assertThat(firings).contains(t.getInstant());
      } else {
        assertThat(Duration.between(firings.get(0), firings.get(firings.size() - 1)))
            .as("the repeated wall-clock time adds real time without firings")
            .isEqualTo(Duration.ofMinutes(local.size() - 1).plus(t.getDuration().abs()));
      }
    }
    assertThat(transitions).isEqualTo(2);
  }

  private static List<LocalDateTime> localTimes(List<Instant> instants, ZoneId zone) {
    return instants.stream().map(i -> LocalDateTime.ofInstant(i, zone)).toList();
  }
}
