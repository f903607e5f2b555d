package dev.ax.common.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.Trigger;
import dev.ax.common.testing.TestTasks;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The weight bound, without a database: specs only enter through {@link TaskSpecCache#put}. */
class TaskSpecCacheTest {

  private static final long ONE_MIB = 1024 * 1024;

  private static StoredTask task(String id, int paramChars) {
    return TestTasks.stored(
        TestTasks.spec(
            id,
            "default",
            new Trigger.FixedRate(Duration.ofSeconds(1), null),
            ExecutorSpec.inProcess("noop"),
            Duration.ofSeconds(5),
            RetryPolicy.DEFAULT,
            Map.of("blob", "x".repeat(paramChars))));
  }

  @Test
  void largeSpecsAreEvictedBeyondTheByteBoundWhateverTheirCount() {
    TaskSpecCache cache = new TaskSpecCache(new TaskStore(null), 100_000, ONE_MIB);

    for (int i = 0; i < 200; i++) { // 200 x 20 KB = 4 MB, far below the count bound
      cache.put(task("big-" + i, 20_000));
    }

    assertThat(cache.weightBytes()).isLessThanOrEqualTo(ONE_MIB);
    assertThat(cache.cachedSpecs()).isBetween(1L, ONE_MIB / 20_000);
  }

  @Test
  void aSpecWeighsItsJsonPlusTheOverhead() {
    int small = TaskSpecCache.weightOf(task("s", 0));
    int big = TaskSpecCache.weightOf(task("s", 10_000));

    assertThat(small).isGreaterThan(TaskSpecCache.ENTRY_OVERHEAD_BYTES);
    assertThat(big - small).isEqualTo(10_000);
  }

  @Test
  void smallSpecsWithinTheBoundAreAllKept() {
    TaskSpecCache cache = new TaskSpecCache(new TaskStore(null), 100_000, ONE_MIB);
    List<StoredTask> tasks = List.of(task("a", 10), task("b", 10), task("c", 10));

    tasks.forEach(cache::put);

    assertThat(cache.cachedSpecs()).isEqualTo(3);
    assertThat(cache.unseen(List.of("a", "b", "c", "d"))).containsExactly("d");
    assertThat(cache.of(tasks, t -> t.spec().taskId(), StoredTask::version)).hasSize(3);
  }

  @Test
  void aSpecWhoseJsonCannotBeWrittenWeighsAsALargeOne() {
    StoredTask unwritable =
        TestTasks.stored(
            TestTasks.spec(
                "odd",
                "default",
                new Trigger.FixedRate(Duration.ofSeconds(Long.MAX_VALUE), null),
                ExecutorSpec.inProcess("noop"),
                Duration.ofSeconds(5),
                RetryPolicy.DEFAULT,
                Map.of()));

    assertThat(TaskSpecCache.weightOf(unwritable))
        .isEqualTo(TaskSpecCache.UNWRITABLE_SPEC_BYTES + TaskSpecCache.ENTRY_OVERHEAD_BYTES);
  }
}
