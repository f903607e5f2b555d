package dev.ax.ticker.reaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.store.Jdbc;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.embedded.junit.WallClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The retention thread deletes only while its node leads, stops deleting when it loses the lead,
 * and closes at once while it pauses.
 */
@ExtendWith(AxInfraExtension.class)
class RetentionThreadIT {

  private static final Duration RETENTION = Duration.ofHours(1);
  private static final LeaseFence LEADING = new LeaseFence(LeaseFence.TICKER, "node-1", 1);

  @Test
  void deletesOnlyWhileLeadingAndClosesPromptly(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      long oldMs = runtime.clock().millis() - Duration.ofHours(2).toMillis();
      AtomicReference<Optional<LeaseFence>> leadership = new AtomicReference<>(Optional.empty());
      AtomicInteger standbyReads = new AtomicInteger();
      Supplier<Optional<LeaseFence>> leads =
          () -> {
            Optional<LeaseFence> fence = leadership.get();
            if (fence.isEmpty()) {
              standbyReads.incrementAndGet();
            }
            return fence;
          };
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      seedFinished(runtime, "first-", 30, oldMs);
      try (RetentionThread thread =
          new RetentionThread(
                  new Retention(
                      new RetentionStore(runtime.dataSource()),
                      runtime.clock(),
                      RETENTION,
                      10,
                      meters),
                  new RetentionPace(1_000_000, 100, Duration.ofMillis(50)),
                  leads,
                  System::nanoTime,
                  meters)
              .start()) {
        assertThat(thread.running()).isTrue();
        await()
            .during(Duration.ofMillis(500))
            .atMost(Duration.ofSeconds(2))
            .until(() -> finished(runtime, "first-%") == 30);

        leadership.set(Optional.of(LEADING));
        await().atMost(Duration.ofSeconds(20)).until(() -> finished(runtime, "first-%") == 0);
        assertThat(meters.get("ax.retention.busy.seconds").counter().count()).isPositive();

        leadership.set(Optional.empty());
        // Two standby turns: past any step that read the lead before it was lost.
        int readsBefore = standbyReads.get();
        await().atMost(Duration.ofSeconds(2)).until(() -> standbyReads.get() >= readsBefore + 2);
        seedFinished(runtime, "second-", 10, oldMs);
        await()
            .during(Duration.ofMillis(500))
            .atMost(Duration.ofSeconds(2))
            .until(() -> finished(runtime, "second-%") == 10);
      }
    }
  }

  @WallClock
  @Test
  void closeWakesAPauseAtOnce(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      RetentionThread thread =
          new RetentionThread(
                  new Retention(
                      new RetentionStore(runtime.dataSource()),
                      runtime.clock(),
                      RETENTION,
                      10,
                      meters),
                  new RetentionPace(1_000_000, 100, Duration.ofHours(1)),
                  () -> Optional.of(LEADING),
                  System::nanoTime,
                  meters)
              .start();
      // Caught up at once (nothing to delete): then it pauses for an hour.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> meters.get("ax.retention.busy.seconds").counter().count() > 0);
      long startNanos = System.nanoTime();
      thread.close();
      assertThat(Duration.ofNanos(System.nanoTime() - startNanos))
          .isLessThan(Duration.ofSeconds(1));
      assertThat(thread.running()).isFalse();
    }
  }

  @Test
  void doesNotStartWhenRetentionIsOff(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      try (RetentionThread thread =
          new RetentionThread(
                  new Retention(
                      new RetentionStore(runtime.dataSource()),
                      runtime.clock(),
                      Duration.ZERO,
                      10,
                      meters),
                  new RetentionPace(1_000_000, 100, Duration.ofMillis(50)),
                  () -> Optional.of(LEADING),
                  System::nanoTime,
                  meters)
              .start()) {
        assertThat(thread.running()).isFalse();
      }
    }
  }

  private static void seedFinished(TestRuntime runtime, String prefix, int count, long atMs)
      throws Exception {
    List<NewTask> tasks = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      tasks.add(new NewTask(TestTasks.onceNoop(prefix + i), "trace", atMs));
    }
    new TaskStore(runtime.dataSource()).create(tasks, "test", atMs);
    RawSql.execute(
        runtime.dataSource(),
        "UPDATE ax_instance SET status = 'SUCCESS', updated_at_ms = "
            + atMs
            + ", finished_at_ms = "
            + atMs
            + " WHERE task_id LIKE '"
            + prefix
            + "%'");
  }

  private static long finished(TestRuntime runtime, String taskIdLike) {
    return new Jdbc(runtime.dataSource())
        .queryLong(
            "counting instances",
            "SELECT COUNT(*) FROM ax_instance WHERE task_id LIKE ?",
            Jdbc.Binder.values(taskIdLike));
  }
}
