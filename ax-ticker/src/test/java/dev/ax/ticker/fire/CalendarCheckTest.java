package dev.ax.ticker.fire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.ScheduleRules;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.ExclusionCalendar;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SettableClock;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The planner's calendar hook: excluded slots are SKIPPED with the calendar, chains go on. */
class CalendarCheckTest {

  // 2026-12-25T00:30Z is 01:30 on the 25th in Berlin; the 24th in New York.
  private static final long SLOT = Instant.parse("2026-12-25T00:30:00Z").toEpochMilli();

  private final SettableClock clock = new SettableClock(Instant.ofEpochMilli(SLOT));
  private final List<ExclusionCalendar> stored =
      new ArrayList<>(
          List.of(
              new ExclusionCalendar(
                  "holidays",
                  ZoneId.of("Europe/Berlin"),
                  List.of(LocalDate.parse("2026-12-25")),
                  List.of(),
                  Set.of(DayOfWeek.MONDAY),
                  null),
              new ExclusionCalendar(
                  "us",
                  ZoneId.of("America/New_York"),
                  List.of(LocalDate.parse("2026-12-25")),
                  List.of(),
                  Set.of(),
                  null)));
  private final FirePlanner planner =
      new FirePlanner(
          new FireTimes(),
          Duration.ofSeconds(5),
          new CalendarCheck(new CalendarDirectory(() -> List.copyOf(stored), clock)));

  private static StoredTask task(Trigger trigger, String... calendars) {
    StoredTask plain = TestTasks.stored(TestTasks.noop("c", trigger));
    return new StoredTask(
        plain.spec().withRules(plain.spec().rules().withCalendars(List.of(calendars))),
        plain.version(),
        plain.state(),
        plain.traceId());
  }

  private static final Trigger EVERY_SECOND = new Trigger.Cron("* * * * * ?", ZoneOffset.UTC);

  private FirePlan plan(String instanceId, StoredTask task) {
    DueInstance row = new DueInstance(instanceId, "c", SLOT, "trace", 1, 1);
    return planner.plan(List.of(row), Map.of("c", task), Set.of(), SLOT);
  }

  @Test
  void anExcludedSlotIsSkippedWithTheCalendarAndTheChainGoesOn() {
    FirePlan plan = plan("c@" + SLOT, task(EVERY_SECOND, "us", "holidays"));
    assertThat(plan.dispatch()).isEmpty();
    assertThat(plan.skip()).containsEntry("calendar holidays: excluded 2026-12-25", List.of(1L));
    assertThat(plan.successorsOf("c@" + SLOT))
        .extracting(NewInstance::instanceId)
        .containsExactly("c@" + (SLOT + 1_000));
  }

  @Test
  void theCalendarsZoneDecidesTheDay() {
    FirePlan plan = plan("c@" + SLOT, task(EVERY_SECOND, "us"));
    assertThat(plan.dispatch()).as("the 24th in New York").containsExactly(1L);
  }

  @Test
  void aRunNowAndATaskWithoutCalendarsRun() {
    assertThat(plan("c@run:op-1", task(EVERY_SECOND, "holidays")).dispatch()).containsExactly(1L);
    assertThat(plan("c@" + SLOT, task(EVERY_SECOND)).dispatch()).containsExactly(1L);
  }

  @Test
  void aMissingCalendarExcludesNothing() {
    stored.clear();
    assertThat(plan("c@" + SLOT, task(EVERY_SECOND, "holidays")).dispatch()).containsExactly(1L);
  }

  @Test
  void aSkippedFixedDelayFiringPlansTheNextOneAnIntervalFromNow() {
    FirePlan plan =
        plan("c@" + SLOT, task(new Trigger.FixedDelay(Duration.ofSeconds(30), null), "holidays"));
    assertThat(plan.skip()).containsKey("calendar holidays: excluded 2026-12-25");
    assertThat(plan.successorsOf("c@" + SLOT))
        .singleElement()
        .satisfies(
            next -> {
              assertThat(next.instanceId()).isEqualTo("c@" + (SLOT + 30_000));
              assertThat(next.dueAtMs()).isEqualTo(SLOT + 30_000);
              assertThat(next.reason()).isEqualTo(CalendarCheck.REASON_AFTER_SKIP);
            });
  }

  @Test
  void aChangedCalendarAppliesAfterTheRefresh() {
    StoredTask task = task(EVERY_SECOND, "holidays");
    assertThat(plan("c@" + SLOT, task).dispatch()).isEmpty();
    stored.clear();
    assertThat(plan("c@" + SLOT, task).dispatch()).as("the copy is fresh").isEmpty();
    clock.tick(Duration.ofMillis(CalendarDirectory.REFRESH_MS));
    assertThat(plan("c@" + SLOT, task).dispatch()).containsExactly(1L);
    assertThat(ScheduleRules.DEFAULT.calendars()).isEmpty();
  }
}
