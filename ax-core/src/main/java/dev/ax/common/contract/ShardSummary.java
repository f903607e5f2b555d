package dev.ax.common.contract;

import java.util.List;

/**
 * The {@code "shards"} of a completion event of a sharded task. On a shard's own event: its {@code
 * index} (from 0) and the firing's {@code total}, and {@code firing}, the firing's instance id. On
 * the firing's aggregate event, sent once when every shard has ended: the {@code total}, how many
 * {@code succeeded}, and the indexes that {@code failed} (dead letters) or were {@code cancelled}
 * (cancelled, skipped, or ended and removed by retention before the firing could settle, which the
 * event's error names). Absent fields are left out of the JSON.
 */
public record ShardSummary(
    Integer index,
    int total,
    String firing,
    Integer succeeded,
    List<Integer> failed,
    List<Integer> cancelled) {

  /** On shard {@code index}'s own completion event. */
  public static ShardSummary ofShard(int index, int total, String firingId) {
    return new ShardSummary(index, total, firingId, null, null, null);
  }

  /** On the firing's aggregate completion event. */
  public static ShardSummary ofFiring(
      int total, int succeeded, List<Integer> failed, List<Integer> cancelled) {
    return new ShardSummary(
        null, total, null, succeeded, List.copyOf(failed), List.copyOf(cancelled));
  }
}
