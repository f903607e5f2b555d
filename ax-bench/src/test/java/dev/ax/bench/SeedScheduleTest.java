package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.bench.SeedSchedule.ScheduleClass;
import dev.ax.bench.SeedSchedule.SeedTask;
import dev.ax.common.schedule.CronSchedule;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The seeds' task set: its proportions, its shared expressions, its determinism. */
class SeedScheduleTest {

  @Test
  void theSeedsTwentyThousandAreEightThousandSecondLevelAndTwelveThousandMinuteOrHour() {
    SeedSchedule schedule = SeedSchedule.of(20_000, 37, "seed-x");

    assertThat(schedule.counts())
        .containsEntry(ScheduleClass.SECOND, 8_000)
        .containsEntry(ScheduleClass.MINUTE, 9_000)
        .containsEntry(ScheduleClass.HOUR, 3_000);
    assertThat(schedule.task(0).taskId()).isEqualTo("seed-x-000000");
    assertThat(schedule.task(19_999).taskId()).isEqualTo("seed-x-019999");
  }

  @Test
  void scaledDownKeepsEveryClass() {
    assertThat(SeedSchedule.of(400, 1, "s").counts())
        .containsEntry(ScheduleClass.SECOND, 160)
        .containsEntry(ScheduleClass.MINUTE, 180)
        .containsEntry(ScheduleClass.HOUR, 60);
    assertThat(SeedSchedule.of(3, 1, "s").counts()).doesNotContainValue(0);
    assertThat(SeedSchedule.of(1, 1, "s").size()).isEqualTo(1);
  }

  @Test
  void manyTasksShareEachExpressionSoTriggerGroupsMatter() {
    SeedSchedule schedule = SeedSchedule.of(20_000, 37, "seed-x");
    Map<String, Long> tasksPerExpression =
        schedule.tasks().stream()
            .collect(Collectors.groupingBy(SeedTask::expression, Collectors.counting()));

    assertThat(schedule.expressions()).hasSizeLessThan(150);
    assertThat(tasksPerExpression.values()).allSatisfy(n -> assertThat(n).isGreaterThan(50));
  }

  @Test
  void secondLevelPeriodsRunFromOneToSixtySecondsAndEveryExpressionParses() {
    SeedSchedule schedule = SeedSchedule.of(20_000, 37, "seed-x");
    Instant from = Instant.parse("2026-12-06T00:00:00Z");
    List<Long> secondPeriods =
        schedule.tasks().stream()
            .filter(t -> t.scheduleClass() == ScheduleClass.SECOND)
            .map(SeedTask::expression)
            .distinct()
            .map(e -> CronSchedule.parse(e, ZoneOffset.UTC))
            .map(cron -> shortestGapSeconds(cron, from))
            .toList();

    assertThat(secondPeriods).contains(1L).allSatisfy(p -> assertThat(p).isBetween(1L, 60L));
    assertThat(schedule.expressions())
        .allSatisfy(e -> assertThat(CronSchedule.problem(e)).as(e).isEmpty());
    Map<String, Long> gaps = new java.util.HashMap<>();
    for (SeedTask task : schedule.tasks()) {
      long gap =
          gaps.computeIfAbsent(
              task.expression(),
              e -> shortestGapSeconds(CronSchedule.parse(e, ZoneOffset.UTC), from));
      switch (task.scheduleClass()) {
        case SECOND -> assertThat(gap).isLessThanOrEqualTo(60);
        case MINUTE -> assertThat(gap).isBetween(60L, 1_800L);
        case HOUR -> assertThat(gap).isBetween(3_600L, 43_200L);
      }
    }
  }

  @Test
  void theSameSeedGivesTheSameTasksAndAnotherSeedOthers() {
    Function<Long, List<String>> expressions =
        seed ->
            SeedSchedule.of(2_000, seed, "s").tasks().stream().map(SeedTask::expression).toList();

    assertThat(expressions.apply(37L)).isEqualTo(expressions.apply(37L));
    assertThat(expressions.apply(37L)).isNotEqualTo(expressions.apply(38L));
  }

  private static long shortestGapSeconds(CronSchedule cron, Instant from) {
    Instant previous = cron.nextAfter(from).orElseThrow();
    long shortest = Long.MAX_VALUE;
    for (int i = 0; i < 30; i++) {
      Instant next = cron.nextAfter(previous).orElseThrow();
      shortest = Math.min(shortest, next.getEpochSecond() - previous.getEpochSecond());
      previous = next;
    }
    return shortest;
  }
}
