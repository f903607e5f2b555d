package dev.ax.common.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Quartz syntax through {@link CronSchedule}, away from DST transitions (UTC unless stated). */
class CronScheduleTest {

  /**
   * Each case: the next firings of {@code cron} in {@code zone} after {@code after} are {@code
   * next}, as many as listed.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case                                             | cron                    | zone          | after                | next
          every five seconds                                 | 0/5 * * * * ?           | UTC           | 2026-05-01T12:00:03Z | 2026-05-01T12:00:05Z 2026-05-01T12:00:10Z 2026-05-01T12:00:15Z
          last day of the month                              | 0 0 12 L * ?            | UTC           | 2026-02-01T00:00:00Z | 2026-02-28T12:00:00Z 2026-03-31T12:00:00Z
          last day of the month, in a leap year              | 0 0 12 L * ?            | UTC           | 2028-02-01T00:00:00Z | 2028-02-29T12:00:00Z
          nearest weekday of Saturday 15th: Friday 14th      | 0 0 12 15W * ?          | UTC           | 2026-08-01T00:00:00Z | 2026-08-14T12:00:00Z
          nearest weekday of Sunday 15th: Monday 16th        | 0 0 12 15W * ?          | UTC           | 2026-11-01T00:00:00Z | 2026-11-16T12:00:00Z
          6#3, the third Friday (Quartz counts SUN=1)        | 0 0 12 ? * 6#3          | UTC           | 2026-03-01T00:00:00Z | 2026-03-20T12:00:00Z 2026-04-17T12:00:00Z 2026-05-15T12:00:00Z
          ranges and lists, from Friday 10:15 over a weekend | 0 0,30 9-10 ? * MON-FRI | UTC           | 2026-03-20T10:15:00Z | 2026-03-20T10:30:00Z 2026-03-23T09:00:00Z 2026-03-23T09:30:00Z 2026-03-23T10:00:00Z 2026-03-23T10:30:00Z
          in the zone of the task, winter                    | 0 0 9 * * ?             | Europe/Berlin | 2026-01-15T00:00:00Z | 2026-01-15T08:00:00Z
          in the zone of the task, summer                    | 0 0 9 * * ?             | Europe/Berlin | 2026-07-15T00:00:00Z | 2026-07-15T07:00:00Z
          """)
  void nextFirings(String description, String cron, String zone, String after, String next) {
    List<Instant> expected = Arrays.stream(next.split(" ")).map(Instant::parse).toList();
    CronSchedule schedule = CronSchedule.parse(cron, ZoneId.of(zone));
    List<Instant> firings = new ArrayList<>();
    Instant cursor = Instant.parse(after);
    while (firings.size() < expected.size()) {
      cursor = schedule.nextAfter(cursor).orElseThrow();
      firings.add(cursor);
    }
    assertThat(firings).isEqualTo(expected);
  }

  @Test
  void nextIsStrictlyAfterTheReference() {
    CronSchedule cron = CronSchedule.parse("0/5 * * * * ?", ZoneOffset.UTC);

    assertNextAfter(cron, "2026-05-01T12:00:05Z", "2026-05-01T12:00:10Z");
    assertNextAfter(cron, "2026-05-01T12:00:04.999Z", "2026-05-01T12:00:05Z");
    assertNextAfter(cron, "2026-05-01T12:00:05.000000001Z", "2026-05-01T12:00:10Z");
  }

  /**
   * The next firing of {@code cron} after the instant {@code after} is the instant {@code next}.
   */
  static void assertNextAfter(CronSchedule cron, String after, String next) {
    assertThat(cron.nextAfter(Instant.parse(after))).contains(Instant.parse(next));
  }

  @Test
  void anExpressionWhoseYearsArePastHasNoNextFiring() {
    CronSchedule cron = CronSchedule.parse("0 0 0 1 1 ? 2020", ZoneOffset.UTC);

    assertThat(cron.nextAfter(Instant.parse("2026-01-01T00:00:00Z"))).isEmpty();
    assertThat(CronSchedule.problem("0 0 0 1 1 ? 2020")).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "0 0 12 * * *|day-of-week AND a day-of-month",
        "* * *|Unexpected end of expression",
        "0 0 25 * * ?|Hour values must be between 0 and 23",
        "0 0 12 ? * 6#6|must follow the '#' option",
        "0 0 0 30 2 ?|matches no date",
        "'   '|empty",
      })
  void problemsNameTheReason(String expression, String reason) {
    assertThat(CronSchedule.problem(expression))
        .hasValueSatisfying(p -> assertThat(p).contains(reason));
  }

  @ParameterizedTest
  @CsvSource({
    "0/5 * * * * ?",
    "0 0 12 L * ?",
    "0 0 12 15W * ?",
    "0 0 12 ? * 6#3",
    "0 0 12 ? * 6L",
    "0 0 12 LW * ?",
    "0 0/15 8-18 ? * MON-FRI",
    "0 0 0 1 1 ? 2030-2040",
  })
  void validExpressionsHaveNoProblem(String expression) {
    assertThat(CronSchedule.problem(expression)).isEmpty();
  }

  @Test
  void parseRejectsInvalidSyntaxWithTheReason() {
    assertThatThrownBy(() -> CronSchedule.parse("0 0 25 * * ?", ZoneOffset.UTC))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0 0 25 * * ?")
        .hasMessageContaining("Hour values");
  }

  @Test
  void oneInstanceIsSafeToShareBetweenThreads() throws Exception {
    CronSchedule cron = CronSchedule.parse("0/7 * * ? * MON-FRI", ZoneId.of("Europe/Berlin"));
    Instant start = Instant.parse("2026-03-27T00:00:00Z");
    List<Instant> expected = walk(cron, start, 5_000);

    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<Instant>>> results = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        results.add(pool.submit(() -> walk(cron, start, 5_000)));
      }
      for (Future<List<Instant>> result : results) {
        assertThat(result.get(30, TimeUnit.SECONDS)).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static List<Instant> walk(CronSchedule cron, Instant start, int n) {
    List<Instant> out = new ArrayList<>(n);
    Optional<Instant> cursor = Optional.of(start);
    for (int i = 0; i < n; i++) {
      cursor = cron.nextAfter(cursor.orElseThrow());
      out.add(cursor.orElseThrow());
    }
    return out;
  }
}
