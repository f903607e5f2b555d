package dev.ax.common.wheel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class InstanceIndexTest {

  @Test
  void matchesAHashMapUnderChurnWithSequentialAndSparseKeys() {
    NodePool pool = new NodePool(16, 1 << 20);
    InstanceIndex index = new InstanceIndex(pool);
    Map<Long, Integer> reference = new HashMap<>();
    SplittableRandom random = new SplittableRandom(3);
    for (int operation = 0; operation < 200_000; operation++) {
      long id =
          random.nextBoolean()
              ? random.nextInt(5_000) // sequential surrogate keys
              : (long) random.nextInt(5_000) << 32; // keys differing only in high bits
      int slot = index.indexOf(id);
      assertThat(slot >= 0).isEqualTo(reference.containsKey(id));
      if (slot >= 0) {
        assertThat(index.nodeAt(slot)).isEqualTo(reference.get(id));
        if (random.nextInt(3) > 0) {
          int node = index.remove(id);
          assertThat(node).isEqualTo(reference.remove(id));
          pool.free(node);
        }
      } else {
        int node = pool.allocate(id, 0, 1);
        index.insertAt(~slot, id, node);
        reference.put(id, node);
      }
      assertThat(index.size()).isEqualTo(reference.size());
    }
    reference.forEach((id, node) -> assertThat(index.nodeAt(index.indexOf(id))).isEqualTo(node));
    assertThat(index.remove(-1)).isEqualTo(-1);
  }
}
