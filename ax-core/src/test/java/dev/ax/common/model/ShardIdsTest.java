package dev.ax.common.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShardIdsTest {

  @Test
  void aShardIdNamesItsFiringIndexAndTotalAndIsNoSlotId() {
    String id = ShardIds.of("report@1700000000000", "report", 2, 5);
    assertThat(id).isEqualTo("report@1700000000000#2of5");
    assertThat(InstanceIds.isSlotId(id)).isFalse();
    assertThat(ShardIds.of("report@1700000000000", "report", 2, 5)).isEqualTo(id);
  }

  @Test
  void aFiringIdTooLongForTheSchemaIsHashedAndTheShardIdsStayDistinctAndWithinIt() {
    String task = "t".repeat(128);
    String firing = InstanceIds.inFlow(task, "f".repeat(200));
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < TaskSpec.MAX_SHARDS; i++) {
      String id = ShardIds.of(firing, task, i, TaskSpec.MAX_SHARDS);
      assertThat(id.length()).isLessThanOrEqualTo(InstanceIds.MAX_LENGTH);
      assertThat(id).startsWith(task + "@h").endsWith("#" + i + "of100");
      ids.add(id);
    }
    assertThat(ids).hasSize(TaskSpec.MAX_SHARDS);
    assertThat(ShardIds.of(firing + "x", task, 0, 2)).isNotEqualTo(ShardIds.of(firing, task, 0, 2));
  }

  @Test
  void anIndexOutsideTheFiringIsABug() {
    assertThatThrownBy(() -> ShardIds.of("a@1", "a", 5, 5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ShardIds.of("a@1", "a", -1, 5))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
