package dev.ax.common.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.model.ConcurrencyPolicy;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.ScheduleRules;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.TaskState;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.UpcomingFirings.Listing;
import dev.ax.common.schedule.UpcomingFirings.Query;
import dev.ax.common.schedule.UpcomingFirings.Upcoming;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The next firings of a task: calendars, jitter, start and end, each trigger type, n's bounds. */
class UpcomingFiringsTest {

  private static final Instant NOW = Instant.parse("2026-12-23T10:00:30Z"); // a Wednesday
  private static final Instant ACCEPTED = Instant.parse("2026-12-01T00:00:00Z");

  private final UpcomingFirings upcoming = new UpcomingFirings(new FireTimes());

  private static TaskSpec task(Trigger trigger, ScheduleRules rules) {
    return new TaskSpec(
            "report",
            "default",
            trigger,
            new ExecutorSpec.InProcess("noop"),
            Duration.ofSeconds(5),
            RetryPolicy.DEFAULT,
            Map.of(),
            MisfirePolicy.DEFAULT,
            MisfirePolicy.DEFAULT_MAX_FIRE_ALL,
            true,
            ConcurrencyPolicy.SKIP)
        .withRules(rules);
  }

  private static ScheduleRules rules(long jitterMs, String... calendars) {
    return new ScheduleRules(
        OverlapPolicy.SKIP, null, Duration.ofMillis(jitterMs), false, List.of(calendars));
  }

  private static final Trigger DAILY_NOON = new Trigger.Cron("0 0 12 * * ?", ZoneOffset.UTC);

  private static final ExclusionCalendar HOLIDAYS =
      new ExclusionCalendar(
          "holidays",
          ZoneOffset.UTC,
          List.of(LocalDate.parse("2026-12-25")),
          List.of(),
          Set.of(DayOfWeek.SUNDAY),
          null);

  private Listing next(TaskSpec spec, TaskState state, Long storedSlotMs, int n) {
    return upcoming.next(
        new Query(spec, state, ACCEPTED, storedSlotMs, NOW, n),
        name -> name.equals("holidays") ? Optional.of(HOLIDAYS) : Optional.empty());
  }

  private static long at(String instant) {
    return Instant.parse(instant).toEpochMilli();
  }

  @Test
  void aCronListsItsSlotsFromTheStoredOneWithTheCalendarsSkipsCounted() {
    Listing listing = next(task(DAILY_NOON, rules(0, "holidays")), TaskState.ACTIVE, null, 5);
    assertThat(listing.firings())
        .containsExactly(
            new Upcoming(at("2026-12-23T12:00:00Z"), at("2026-12-23T12:00:00Z"), null),
            new Upcoming(at("2026-12-24T12:00:00Z"), at("2026-12-24T12:00:00Z"), null),
            new Upcoming(
                at("2026-12-25T12:00:00Z"),
                at("2026-12-25T12:00:00Z"),
                "calendar holidays: excluded 2026-12-25"),
            new Upcoming(at("2026-12-26T12:00:00Z"), at("2026-12-26T12:00:00Z"), null),
            new Upcoming(
                at("2026-12-27T12:00:00Z"),
                at("2026-12-27T12:00:00Z"),
                "calendar holidays: excluded 2026-12-27"));
    assertThat(listing.notes()).isEmpty();
    // A stored next firing (late, say) comes first.
    Listing fromStored =
        next(task(DAILY_NOON, rules(0)), TaskState.ACTIVE, at("2026-12-22T12:00:00Z"), 2);
    assertThat(fromStored.firings())
        .extracting(Upcoming::slotMs)
        .containsExactly(at("2026-12-22T12:00:00Z"), at("2026-12-23T12:00:00Z"));
  }

  @Test
  void jitterMovesTheDueTimeAsTheTickerWill() {
    TaskSpec spec = task(DAILY_NOON, rules(60_000));
    for (Upcoming firing : next(spec, TaskState.ACTIVE, null, 20).firings()) {
      assertThat(firing.dueAtMs())
          .isEqualTo(Jitter.dueAtMs("report", firing.slotMs(), spec.rules()))
          .isBetween(firing.slotMs(), firing.slotMs() + 60_000);
    }
  }

  @Test
  void aMissingCalendarExcludesNothingAndIsNamed() {
    Listing listing = next(task(DAILY_NOON, rules(0, "gone")), TaskState.ACTIVE, null, 3);
    assertThat(listing.firings()).extracting(Upcoming::skippedBy).containsOnlyNulls();
    assertThat(listing.notes())
        .containsExactly("calendar gone does not exist: it excludes nothing");
  }

  @Test
  void theListStopsAtEndAtAndStartsAtAFutureStartAt() {
    Trigger bounded =
        new Trigger.Cron(
            "0 0 12 * * ?",
            ZoneId.of("UTC"),
            Instant.parse("2027-01-10T00:00:00Z"),
            Instant.parse("2027-01-12T12:00:00Z"));
    Listing listing = next(task(bounded, rules(0)), TaskState.ACTIVE, null, 10);
    assertThat(listing.firings())
        .extracting(Upcoming::slotMs)
        .containsExactly(
            at("2027-01-10T12:00:00Z"), at("2027-01-11T12:00:00Z"), at("2027-01-12T12:00:00Z"));
    assertThat(listing.notes()).containsExactly("the schedule ends at 2027-01-12T12:00:00Z");
  }

  @Test
  void aFixedRateStaysOnItsGrid() {
    Trigger rate = new Trigger.FixedRate(Duration.ofMinutes(7), null);
    Listing listing = next(task(rate, rules(0)), TaskState.ACTIVE, null, 3);
    long first = listing.firings().get(0).slotMs();
    assertThat((first - ACCEPTED.toEpochMilli()) % Duration.ofMinutes(7).toMillis()).isZero();
    assertThat(first).isGreaterThan(NOW.toEpochMilli());
    assertThat(listing.firings())
        .extracting(Upcoming::slotMs)
        .containsExactly(first, first + 420_000, first + 840_000);
  }

  @Test
  void aFixedDelayKnowsOnlyItsStoredNextFiring() {
    Trigger delay = new Trigger.FixedDelay(Duration.ofMinutes(5), null);
    long stored = at("2026-12-25T10:03:00Z");
    Listing listing = next(task(delay, rules(0, "holidays")), TaskState.ACTIVE, stored, 10);
    assertThat(listing.firings())
        .containsExactly(new Upcoming(stored, stored, "calendar holidays: excluded 2026-12-25"));
    assertThat(listing.notes().get(0)).contains("only the next one is known");
    assertThat(next(task(delay, rules(0)), TaskState.ACTIVE, null, 10).notes().get(0))
        .contains("created when its run in flight ends");
  }

  @Test
  void aOnceFiresOnceAndADependencyHasNoTimes() {
    Trigger once = Trigger.Once.at(Instant.parse("2026-12-24T00:00:00Z"));
    long due = at("2026-12-24T00:00:00Z");
    assertThat(next(task(once, rules(0)), TaskState.ACTIVE, due, 10).firings())
        .containsExactly(new Upcoming(due, due, null));
    assertThat(next(task(once, rules(0)), TaskState.ACTIVE, null, 10).notes().get(0))
        .contains("fires once");
    Listing dependency =
        next(task(new Trigger.Dependency(List.of("a")), rules(0)), TaskState.ACTIVE, null, 10);
    assertThat(dependency.firings()).isEmpty();
    assertThat(dependency.notes().get(0)).contains("upstream tasks succeed");
  }

  @Test
  void stoppedTasksHaveNoneAndAPausedOneSaysSo() {
    assertThat(next(task(DAILY_NOON, rules(0)), TaskState.CANCELLED, null, 10).firings()).isEmpty();
    assertThat(next(task(DAILY_NOON, rules(0)), TaskState.ENDED, null, 10).notes())
        .containsExactly("task is ENDED: nothing fires");
    Listing paused = next(task(DAILY_NOON, rules(0)), TaskState.PAUSED, null, 2);
    assertThat(paused.firings()).hasSize(2);
    assertThat(paused.notes().get(0)).contains("PAUSED");
  }

  @Test
  void nIsBounded() {
    TaskSpec spec = task(DAILY_NOON, rules(0));
    assertThat(next(spec, TaskState.ACTIVE, null, 1000).firings()).hasSize(1000);
    assertThatThrownBy(() -> next(spec, TaskState.ACTIVE, null, 0))
        .hasMessage("n must be in 1..1000: 0");
    assertThatThrownBy(() -> next(spec, TaskState.ACTIVE, null, 1001))
        .hasMessage("n must be in 1..1000: 1001");
  }
}
