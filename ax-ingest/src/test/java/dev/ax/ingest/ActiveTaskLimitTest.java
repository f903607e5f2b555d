package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.CommandType;
import dev.ax.common.contract.TaskCommand;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.testing.TestTasks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * When the limit reads its group's live count again: on the first batch, when a batch could pass
 * the limit on the kept bound, and when the creates accepted since the last read used a quarter of
 * the room that read left; otherwise never, however many batches pass.
 */
class ActiveTaskLimitTest {

  /** A database whose group "default" holds {@code live} live tasks; counts its reads. */
  private static final class FakeCounts implements ActiveTaskLimit.Counts {
    long live;
    int reads;

    FakeCounts(long live) {
      this.live = live;
    }

    @Override
    public Map<String, Long> liveByGroup(Collection<String> groups) {
      reads++;
      Map<String, Long> counts = new HashMap<>();
      if (live > 0) {
        counts.put("default", live);
      }
      return counts;
    }

    @Override
    public Set<String> existing(Collection<String> taskIds) {
      return Set.of();
    }
  }

  private int next;

  private List<TaskCommand> creates(int count) {
    List<TaskCommand> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String taskId = "t-" + next++;
      batch.add(
          new TaskCommand(
              1,
              CommandType.CREATE,
              taskId,
              null,
              TestTasks.noop(taskId, Trigger.Once.after(Duration.ofSeconds(1))),
              "trace",
              false,
              null,
              null,
              null,
              false,
              null));
    }
    return batch;
  }

  @Test
  void aNamespacesLimitCountsItsTasksOverAllGroupsAndLeavesTheDefaultNamespaceAlone() {
    Map<String, Long> live = new HashMap<>(Map.of("billing", 9L));
    ActiveTaskLimit.Counts db =
        new ActiveTaskLimit.Counts() {
          @Override
          public Map<String, Long> liveByGroup(Collection<String> namespaces) {
            Map<String, Long> counts = new HashMap<>();
            namespaces.forEach(n -> counts.put(n, live.getOrDefault(n, 0L)));
            return counts;
          }

          @Override
          public Set<String> existing(Collection<String> taskIds) {
            return Set.of();
          }
        };
    ActiveTaskLimit limit = new ActiveTaskLimit(db, 10, ActiveTaskLimit.Scope.NAMESPACE);
    List<TaskCommand> batch = new ArrayList<>();
    batch.add(create("billing~a", "billing~g1"));
    batch.add(create("billing~b", "billing~g2"));
    batch.add(create("plain", "default"));
    batch.add(create("shop~c", "shop~g1"));

    Map<Integer, String> rejected = limit.rejections(batch);

    assertThat(rejected).containsOnlyKeys(1);
    assertThat(rejected.get(1))
        .contains("namespace 'billing' has 10 active tasks, the limit is 10")
        .contains("AX_MAX_ACTIVE_TASKS_PER_NAMESPACE");
  }

  private static TaskCommand create(String taskId, String group) {
    TaskSpec noop = TestTasks.noop(taskId, Trigger.Once.after(Duration.ofSeconds(1)));
    TaskSpec spec = noop.withIds(taskId, group, noop.trigger());
    return new TaskCommand(
        1, CommandType.CREATE, taskId, null, spec, "trace", false, null, null, null, false, null);
  }

  @Test
  void batchesWellUnderTheLimitReadTheCountOncePerQuarterOfTheRoom() {
    FakeCounts db = new FakeCounts(600);
    ActiveTaskLimit limit = new ActiveTaskLimit(db, 1_000); // room 400: a re-read each 100

    assertThat(limit.rejections(creates(10))).isEmpty();
    assertThat(db.reads).as("the first batch reads").isEqualTo(1);
    for (int i = 0; i < 8; i++) {
      assertThat(limit.rejections(creates(10))).isEmpty();
    }
    assertThat(db.reads).as("90 creates: under a quarter of the room").isEqualTo(1);

    assertThat(limit.rejections(creates(10))).isEmpty();
    assertThat(db.reads).as("the 100th create reaches the quarter").isEqualTo(2);
  }

  @Test
  void aBatchThatCouldPassTheLimitIsJudgedOnAFreshCount() {
    FakeCounts db = new FakeCounts(95);
    ActiveTaskLimit limit = new ActiveTaskLimit(db, 100); // room 5: a quarter is 1

    assertThat(limit.rejections(creates(3))).isEmpty();
    db.live = 98; // another replica's creates
    Map<Integer, String> rejected = limit.rejections(creates(3));

    assertThat(db.reads).isEqualTo(2);
    assertThat(rejected)
        .containsOnlyKeys(2)
        .containsValue(
            "group 'default' has 100 active tasks, the limit is 100"
                + " (AX_MAX_ACTIVE_TASKS_PER_GROUP)");
  }

  @Test
  void tasksThatEndedFreeTheRoomAtTheNextRead() {
    FakeCounts db = new FakeCounts(100);
    ActiveTaskLimit limit = new ActiveTaskLimit(db, 100);

    assertThat(limit.rejections(creates(1))).hasSize(1);
    db.live = 0; // every one ended
    assertThat(limit.rejections(creates(1))).isEmpty();
    assertThat(db.reads).isEqualTo(2);
  }

  @Test
  void atTheSeedsVolumeTenMillionLiveTasksStillTakeBatchesWithoutACountEach() {
    FakeCounts db = new FakeCounts(10_000_000);
    ActiveTaskLimit limit = new ActiveTaskLimit(db, 20_000_000);

    for (int i = 0; i < 1_000; i++) {
      assertThat(limit.rejections(creates(500))).isEmpty();
    }

    assertThat(db.reads).as("500,000 creates, a quarter of the room is 2,500,000").isEqualTo(1);
  }
}
