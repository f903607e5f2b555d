package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.bench.SeedSchedule.ScheduleClass;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TriggerType;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The seed mix's judgement: every slot in the window once, not early, nothing else. */
class SeedFiringsTest {

  private static final long FROM_MS = Instant.parse("2026-12-06T00:00:00Z").toEpochMilli();

  /** One task, index 0: the first task of a set is second-level. */
  private final SeedSchedule schedule = SeedSchedule.of(1, 37, "seed-t");

  private static TaskCompletedEvent event(String taskId, long dueMs, long startedMs) {
    return new TaskCompletedEvent(
        1,
        taskId,
        taskId + "@" + dueMs,
        1,
        InstanceStatus.SUCCESS,
        dueMs,
        startedMs - 1,
        startedMs,
        startedMs + 1,
        1,
        startedMs - dueMs,
        "t",
        null,
        "n",
        InstanceStatus.SUCCESS,
        null,
        TriggerType.CRON,
        null);
  }

  @Test
  void countsMissedDoubledEarlyAndUnexpectedFiringsPerSlot() {
    String expression = schedule.task(0).expression();
    assertThat(schedule.task(0).scheduleClass()).isEqualTo(ScheduleClass.SECOND);
    SeedFirings firings = new SeedFirings(schedule, "seed-t", FROM_MS, FROM_MS + 59_999);
    dev.ax.common.schedule.CronSchedule cron =
        dev.ax.common.schedule.CronSchedule.parse(expression, java.time.ZoneOffset.UTC);
    java.util.List<Long> slots = new java.util.ArrayList<>();
    for (Instant t = cron.nextAfter(Instant.ofEpochMilli(FROM_MS - 1)).orElseThrow();
        t.toEpochMilli() <= FROM_MS + 59_999;
        t = cron.nextAfter(t).orElseThrow()) {
      slots.add(t.toEpochMilli());
    }
    assertThat(slots).hasSizeGreaterThanOrEqualTo(2);
    String id = schedule.task(0).taskId();
    // The first slot is missed: its firing did not run (skipped by the task's overlap policy).
    firings.accept(
        new TaskCompletedEvent(
            1,
            id,
            id + "@" + slots.get(0),
            0,
            InstanceStatus.SKIPPED,
            slots.get(0),
            0,
            0,
            slots.get(0),
            0,
            0,
            "t",
            "overlap: a run of the task is in flight",
            "ticker",
            InstanceStatus.SKIPPED,
            null,
            TriggerType.CRON,
            null));
    for (int i = 1; i < slots.size(); i++) {
      firings.accept(event(id, slots.get(i), slots.get(i) + 20));
    }
    firings.accept(event(id, slots.get(1), slots.get(1) + 900)); // doubled: another start
    firings.accept(event(id, slots.get(2), slots.get(2) + 20)); // the same event again
    firings.accept(event(id, slots.get(1) + 1, slots.get(1) - 5)); // no slot, and early
    firings.accept(event("other-000000", slots.get(1), slots.get(1))); // not the mix's
    firings.accept(event(id, FROM_MS - 1_000, FROM_MS)); // before the window

    firings.settle(FROM_MS + 120_000);

    SeedFirings.Counts c = firings.counts(ScheduleClass.SECOND);
    assertThat(c.expected).isEqualTo(slots.size());
    assertThat(c.observed).isEqualTo(slots.size() - 1);
    assertThat(c.missed).isEqualTo(1);
    assertThat(c.doubled).isEqualTo(1);
    assertThat(c.repeatedEvents).as("an event sent again is no second start").isEqualTo(1);
    assertThat(firings.doubledSamples())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains("attempt 1 SUCCESS")
        .contains(" | then ");
    assertThat(c.unexpected).isEqualTo(1);
    assertThat(c.early).isEqualTo(1);
    assertThat(c.lateness.getMaxValue()).isEqualTo(20);
    assertThat(firings.outside()).isEqualTo(1);

    firings.accept(event(id, slots.get(2), slots.get(2) + 5));
    assertThat(firings.afterSettle()).as("a slot judged already").isEqualTo(1);
  }
}
