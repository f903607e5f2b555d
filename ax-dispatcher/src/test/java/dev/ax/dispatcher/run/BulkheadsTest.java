package dev.ax.dispatcher.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.StoredTask;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SettableClock;
import dev.ax.dispatcher.executor.NoopExecutor;
import dev.ax.dispatcher.store.ClaimedInstance;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BulkheadsTest {

  private static final int MAX_GROUPS = 8;
  private static final int THREADS = 2;

  private final List<Completion> done = new CopyOnWriteArrayList<>();
  private final Bulkheads bulkheads =
      new Bulkheads(
          new SettableClock(Instant.ofEpochMilli(1_000)),
          new BulkheadLimits(Map.of(), THREADS, 1_000, MAX_GROUPS, Duration.ofMillis(200)),
          QueueBound.NONE,
          done::add);

  @AfterEach
  void stop() {
    bulkheads.shutdown(Duration.ofSeconds(5));
  }

  private static StoredTask task(String id, String group) {
    return TestTasks.stored(
        TestTasks.spec(
            id,
            group,
            Trigger.Once.after(Duration.ZERO),
            ExecutorSpec.inProcess("noop"),
            Duration.ofMinutes(1),
            RetryPolicy.DEFAULT,
            Map.of()));
  }

  private void run(String id, String group) {
    ClaimedInstance claimed =
        new ClaimedInstance(id + "@1", id, 1, 1, 1_000, 1_000, "trace", 0, 1, id + "@1", 0);
    bulkheads
        .runnerFor(bulkheads.poolFor(group))
        .submit(claimed, task(id, group), new NoopExecutor());
  }

  @Test
  void aThousandGroupsShareABoundedNumberOfPoolsAndThreads() {
    int groups = 1_000;
    Set<String> pools = new HashSet<>();
    int peakThreads = 0;
    for (int g = 0; g < groups; g++) {
      pools.add(bulkheads.poolFor("g" + g));
      run("t" + g, "g" + g);
      peakThreads = Math.max(peakThreads, bulkheads.liveWorkerThreads());
    }

    await().atMost(Duration.ofSeconds(30)).until(() -> done.size() == groups);
    assertThat(done).extracting(Completion::status).containsOnly(InstanceStatus.SUCCESS);
    assertThat(pools).hasSize(MAX_GROUPS + 1).contains(Bulkheads.OVERFLOW_GROUP);
    assertThat(bulkheads.pools()).isEqualTo(MAX_GROUPS + 1);
    assertThat(peakThreads).isLessThanOrEqualTo((MAX_GROUPS + 1) * THREADS);
  }

  @Test
  void aTaskOfAGroupBeyondTheCapRunsInTheOverflowPool() {
    for (int g = 0; g < MAX_GROUPS; g++) {
      assertThat(bulkheads.poolFor("own" + g)).isEqualTo("own" + g);
    }
    assertThat(bulkheads.poolFor("late")).isEqualTo(Bulkheads.OVERFLOW_GROUP);
    assertThat(bulkheads.poolFor("own0")).as("a group keeps its pool").isEqualTo("own0");

    run("late-task", "late");

    await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 1);
    assertThat(done.get(0).status()).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(done.get(0).claimed().taskId()).isEqualTo("late-task");
  }

  @Test
  void aGroupTheOperatorSizedHasItsPoolEvenAfterTheCapIsFull() {
    Bulkheads sized =
        new Bulkheads(
            new SettableClock(Instant.ofEpochMilli(1_000)),
            new BulkheadLimits(
                Map.of("billing", 4, Bulkheads.RETRY_GROUP, 2),
                THREADS,
                1_000,
                MAX_GROUPS,
                Duration.ofMillis(200)),
            QueueBound.NONE,
            done::add);
    try {
      for (int g = 0; g < MAX_GROUPS; g++) {
        sized.poolFor("throwaway" + g);
      }
      assertThat(sized.poolFor("late")).isEqualTo(Bulkheads.OVERFLOW_GROUP);
      assertThat(sized.poolFor("billing")).isEqualTo("billing");
      assertThat(sized.poolFor(Bulkheads.RETRY_GROUP)).isEqualTo(Bulkheads.OVERFLOW_GROUP);
    } finally {
      sized.shutdown(Duration.ofSeconds(5));
    }
  }

  @Test
  void aReservedTaskGroupNeverGetsAnInternalPool() {
    assertThat(bulkheads.poolFor(Bulkheads.RETRY_GROUP)).isEqualTo(Bulkheads.OVERFLOW_GROUP);
    assertThat(bulkheads.poolFor("__anything")).isEqualTo(Bulkheads.OVERFLOW_GROUP);
    assertThat(bulkheads.poolFor(null)).isEqualTo(Bulkheads.OVERFLOW_GROUP);
    // Reserved names take none of the cap's places.
    for (int g = 0; g < MAX_GROUPS; g++) {
      assertThat(bulkheads.poolFor("own" + g)).isEqualTo("own" + g);
    }
  }

  @Test
  void idlePoolsGiveTheirThreadsBack() {
    for (int g = 0; g < MAX_GROUPS; g++) {
      run("t" + g, "g" + g);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == MAX_GROUPS);

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(bulkheads.liveWorkerThreads()).isZero());
  }
}
