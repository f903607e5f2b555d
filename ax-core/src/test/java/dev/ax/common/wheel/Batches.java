package dev.ax.common.wheel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** An {@link ExpiryHandler} that records every batch, ids sorted, for assertions. */
final class Batches implements ExpiryHandler {

  /** One handed-out batch; {@code ids} sorted ascending. */
  record Batch(int groupId, long dueAtMs, List<Long> ids) {
    static Batch of(int groupId, long dueAtMs, long... ids) {
      long[] sorted = ids.clone();
      Arrays.sort(sorted);
      return new Batch(groupId, dueAtMs, Arrays.stream(sorted).boxed().toList());
    }

    @Override
    public String toString() {
      return "g" + groupId + "@" + dueAtMs + ids;
    }
  }

  private final List<Batch> batches = new ArrayList<>();

  @Override
  public void onExpired(int groupId, long dueAtMs, long[] instanceIds, int count) {
    batches.add(Batch.of(groupId, dueAtMs, Arrays.copyOf(instanceIds, count)));
  }

  /** The batches recorded since the last call, and forgets them. */
  List<Batch> take() {
    List<Batch> taken = List.copyOf(batches);
    batches.clear();
    return taken;
  }

  /** Every id recorded since the last call, in hand-out order, and forgets them. */
  List<Long> takeIds() {
    return take().stream().flatMap(batch -> batch.ids().stream()).toList();
  }
}
