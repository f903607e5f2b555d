package dev.ax.common.store;

import static dev.ax.common.model.InstanceStatus.CANCELLED;
import static dev.ax.common.model.InstanceStatus.DEAD;
import static dev.ax.common.model.InstanceStatus.SUCCESS;

import dev.ax.common.contract.ShardSummary;
import dev.ax.common.model.InstanceStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a sharded firing whose shards have all ended comes out: SUCCESS when every shard succeeded,
 * DEAD when any became a dead letter, else CANCELLED (shards cancelled, skipped, or removed by
 * retention before the firing could settle); the error names the shards that did not succeed.
 * Immutable.
 *
 * @param error null for SUCCESS
 */
record ShardTally(InstanceStatus status, String error, ShardSummary summary) {

  /** The tally of {@code total} shards whose stored statuses, by index, are {@code shards}. */
  static ShardTally of(int total, Map<Integer, InstanceStatus> shards) {
    int succeeded = 0;
    List<Integer> failed = new ArrayList<>();
    List<Integer> cancelled = new ArrayList<>();
    List<Integer> gone = new ArrayList<>();
    for (int i = 0; i < total; i++) {
      InstanceStatus shard = shards.get(i);
      if (shard == null) {
        // Created with the firing in one transaction, so a shard missing now was ended and then
        // removed by retention while its firing waited (paused, or a sibling retried for long).
        gone.add(i);
      } else if (shard == SUCCESS) {
        succeeded++;
      } else if (shard == DEAD) {
        failed.add(i);
      } else {
        cancelled.add(i);
      }
    }
    InstanceStatus status =
        !failed.isEmpty() ? DEAD : cancelled.isEmpty() && gone.isEmpty() ? SUCCESS : CANCELLED;
    List<String> parts = new ArrayList<>();
    if (!failed.isEmpty()) {
      parts.add("shards failed: " + join(failed));
    }
    if (!cancelled.isEmpty()) {
      parts.add("shards cancelled: " + join(cancelled));
    }
    if (!gone.isEmpty()) {
      parts.add("shards no longer stored (removed by retention): " + join(gone));
    }
    String error = status == SUCCESS ? null : String.join("; ", parts);
    cancelled.addAll(gone);
    cancelled.sort(null);
    return new ShardTally(
        status, error, ShardSummary.ofFiring(total, succeeded, failed, cancelled));
  }

  private static String join(List<Integer> indexes) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < indexes.size(); i++) {
      text.append(i == 0 ? "" : ", ").append(indexes.get(i));
    }
    return text.toString();
  }
}
