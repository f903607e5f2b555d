package dev.ax.dispatcher.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.ClaimedInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SettableClock;
import dev.ax.dispatcher.executor.NoopExecutor;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class AttemptRunnerTest {

  /**
   * A run that ends before its timeout timer is even scheduled must still drop that timer: left
   * queued until its deadline (a minute here), it would hold the attempt and its spec in memory,
   * which at thousands of quick runs a second is hundreds of thousands of objects kept alive.
   */
  @Test
  void quickRunsLeaveNoTimerBehind() {
    List<Completion> done = new CopyOnWriteArrayList<>();
    StoredTask task =
        TestTasks.stored(
            new TaskSpec(
                "quick",
                "default",
                Trigger.Once.after(Duration.ofMillis(1)),
                ExecutorSpec.inProcess("noop"),
                Duration.ofMinutes(1),
                RetryPolicy.DEFAULT,
                Map.of()));
    int runs = 2_000;
    try (AttemptRunner runner =
        new AttemptRunner(new SettableClock(Instant.ofEpochMilli(1_000)), 4, runs, done::add)) {
      for (int i = 0; i < runs; i++) {
        String id = "quick@" + i;
        runner.submit(
            new ClaimedInstance(id, "quick", 1, 1, 1_000, 1_000, "trace", 0, i, id, 0),
            task,
            new NoopExecutor());
      }

      await().atMost(Duration.ofSeconds(30)).until(() -> done.size() == runs);
      assertThat(done).extracting(Completion::status).containsOnly(InstanceStatus.SUCCESS);
      assertThat(runner.pendingTimers()).as("timers still queued after every run ended").isZero();
    }
  }

  @Test
  void anErrorOfAnySizeIsCutToWhatTheInstanceStores() {
    String huge = "x".repeat(5_000_000);

    String cut = AttemptRunner.bounded(huge);

    assertThat(cut).startsWith("x".repeat(AttemptRunner.MAX_ERROR_CHARS)).endsWith("cut)");
    assertThat(cut.length()).isLessThan(AttemptRunner.MAX_ERROR_CHARS + 64);
    assertThat(AttemptRunner.bounded("short")).isEqualTo("short");
    assertThat(AttemptRunner.bounded(null)).isNull();
  }
}
