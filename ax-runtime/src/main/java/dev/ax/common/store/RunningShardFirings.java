package dev.ax.common.store;

import dev.ax.common.model.InstanceStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The reaper's look at the sharded firings still running shards ({@link ShardFirings}): pages of
 * them in (due time, id) order, and which of a page have every shard ended. Stateless.
 */
public final class RunningShardFirings {

  private RunningShardFirings() {}

  /**
   * A page of the firings running shards after a cursor, in (due time, id) order: one range of the
   * RUNNING rows, which are as many as the runs in flight, whatever the history. Parameters: the
   * owner ({@link ShardFirings#OWNER}), the cursor's due time twice and id, the limit.
   */
  public static final String UNSETTLED_SQL =
      "SELECT instance_id, due_at_ms FROM ax_instance FORCE INDEX (ax_instance_status_due)"
          + " WHERE status = 'RUNNING' AND owner = ?"
          + " AND (due_at_ms > ? OR (due_at_ms = ? AND instance_id > ?))"
          + " ORDER BY due_at_ms, instance_id LIMIT ?";

  /** Where a look over the running firings goes on from: after this due time and id. */
  public record Cursor(long dueAtMs, String instanceId) {

    /** Before every firing. */
    public static final Cursor START = new Cursor(Long.MIN_VALUE, "");
  }

  /** A running firing as {@link #unsettled} lists it. */
  public record Running(String instanceId, long dueAtMs) {

    /** The cursor just after this firing. */
    public Cursor cursor() {
      return new Cursor(dueAtMs, instanceId);
    }
  }

  /** At most {@code limit} firings running shards after {@code after}, in cursor order. */
  public static List<Running> unsettled(Jdbc jdbc, Cursor after, int limit) {
    return jdbc.query(
        "listing sharded firings",
        UNSETTLED_SQL,
        Jdbc.Binder.values(
            ShardFirings.OWNER, after.dueAtMs(), after.dueAtMs(), after.instanceId(), limit),
        rs -> new Running(rs.getString(1), rs.getLong(2)));
  }

  /**
   * Those of {@code firingIds} whose stored shards have all ended, read without a lock: the
   * candidates {@link ShardFirings#settle} (which checks again under its lock) is worth running
   * for.
   */
  public static List<String> endedAmong(Jdbc jdbc, List<String> firingIds) {
    return jdbc.read(
        "checking sharded firings",
        tx -> {
          List<String> ended = new ArrayList<>();
          for (Map.Entry<String, Map.Entry<String, Integer>> firing :
              tx.queryIn(
                  firingIds,
                  in ->
                      "SELECT instance_id, task_id, shard_total FROM ax_instance"
                          + " WHERE instance_id IN ("
                          + in
                          + ") AND shard_total > 1",
                  List.of(),
                  rs -> Map.entry(rs.getString(1), Map.entry(rs.getString(2), rs.getInt(3))))) {
            if (ShardFirings.statusOfShards(
                    tx, firing.getKey(), firing.getValue().getKey(), firing.getValue().getValue())
                .values()
                .stream()
                .allMatch(InstanceStatus::isTerminal)) {
              ended.add(firing.getKey());
            }
          }
          return ended;
        });
  }
}
