package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The soak's arithmetic: tasks, due offsets, windows; and reading a resident set. */
class SoakPlanTest {

  @Test
  void anHourAtTwoThousandASecondIsSevenPointTwoMillionTasksInTwelveWindows() {
    SoakPlan plan =
        new SoakPlan(Duration.ofHours(1), 2_000, Duration.ofMinutes(5), Duration.ofSeconds(5));

    assertThat(plan.tasks()).isEqualTo(7_200_000);
    assertThat(plan.windows()).isEqualTo(12);
    assertThat(plan.dueOffsetMs(2_000)).isEqualTo(1_000);
    assertThat(plan.tasksBefore(Duration.ofMinutes(5).toMillis())).isEqualTo(600_000);
    assertThat(plan.tasksBefore(0)).isZero();
    assertThat(plan.tasksBefore(Duration.ofHours(2).toMillis())).isEqualTo(7_200_000);
  }

  @Test
  void tasksBeforeIsTheFirstTaskDueAtOrAfterTheOffsetAtAnyRate() {
    SoakPlan plan =
        new SoakPlan(Duration.ofSeconds(20), 7, Duration.ofSeconds(10), Duration.ofSeconds(1));
    for (long offset = 1; offset < 20_000; offset += 37) {
      int i = plan.tasksBefore(offset);
      assertThat(plan.dueOffsetMs(i)).isGreaterThanOrEqualTo(offset);
      assertThat(plan.dueOffsetMs(i - 1)).isLessThan(offset);
    }
  }

  @Test
  void refusesWindowsLongerThanTheSoak() {
    assertThatThrownBy(
            () ->
                new SoakPlan(
                    Duration.ofMinutes(1), 10, Duration.ofMinutes(2), Duration.ofSeconds(5)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void readsTheResidentSetFromProcStatus() {
    assertThat(
            ProcessMemory.parseVmRssBytes(
                List.of("Name:\tjava", "VmPeak:\t 9000 kB", "VmRSS:\t  123456 kB", "Threads: 9")))
        .isEqualTo(123_456L * 1024);
    assertThat(ProcessMemory.parseVmRssBytes(List.of("Name:\tjava"))).isEqualTo(-1);
    assertThat(ProcessMemory.rssBytes(ProcessHandle.current().pid())).isPositive();
  }
}
