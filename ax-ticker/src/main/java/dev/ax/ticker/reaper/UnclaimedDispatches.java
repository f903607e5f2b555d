package dev.ax.ticker.reaper;

import static dev.ax.common.model.InstanceStatus.DISPATCHED;

import dev.ax.common.store.BatchMove;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.Sql;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The reaper's SQL over DISPATCHED rows nobody claimed: those not claimed in time (their due event
 * was lost, or every dispatcher was down) and those a previous leader emitted, stamped again with
 * this leader's epoch to be emitted again; while the {@code dispatch} switch holds some task
 * groups, their rows are only re-dated. Every write is fenced by the leader's lease and re-checks,
 * in the UPDATE itself, that the row is still DISPATCHED and still below the bound that made it a
 * candidate. Reached through {@link ReaperStore}.
 *
 * <p>Thread-safe (stateless over a pool).
 */
final class UnclaimedDispatches {

  /** DISPATCHED rows not claimed in time, with their task's group (while a switch holds some). */
  static final String UNCLAIMED_WITH_GROUP =
      "SELECT i.instance_id, t.task_group FROM ax_instance i FORCE INDEX ("
          + ReaperStore.STATUS_INDEX
          + ") JOIN ax_task t ON t.task_id = i.task_id"
          + " WHERE i.status = ? AND i.dispatched_at_ms < ? LIMIT ?";

  /** DISPATCHED rows not claimed in time (re-emitted), or of an older epoch (adopted). */
  static String dispatchedBelowSql(String column) {
    return "SELECT instance_id FROM ax_instance FORCE INDEX ("
        + ReaperStore.STATUS_INDEX
        + ") WHERE status = ? AND "
        + column
        + " < ? LIMIT ?";
  }

  private final Jdbc jdbc;

  UnclaimedDispatches(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  /** See {@link ReaperStore#restampUnclaimed}. */
  List<DueInstance> restampUnclaimed(LeaseFence fence, long olderThanMs, long nowMs, int limit) {
    return restampDispatched(
        fence, "dispatched_at_ms", olderThanMs, "not claimed in time: emitted again", nowMs, limit);
  }

  /** See {@link ReaperStore#restampUnclaimedExcept}. */
  List<DueInstance> restampUnclaimedExcept(
      LeaseFence fence, long olderThanMs, long nowMs, int limit, Predicate<String> held) {
    Map<Boolean, List<String>> byHeld =
        jdbc
            .query(
                "selecting unclaimed instances with their group",
                UNCLAIMED_WITH_GROUP,
                Jdbc.Binder.values(DISPATCHED.name(), olderThanMs, limit),
                rs -> Map.entry(rs.getString(1), held.test(rs.getString(2))))
            .stream()
            .collect(
                Collectors.partitioningBy(
                    Map.Entry::getValue,
                    Collectors.mapping(Map.Entry::getKey, Collectors.toList())));
    List<String> quiet = byHeld.get(true);
    if (!quiet.isEmpty()) {
      jdbc.inTransaction(
          "holding " + quiet.size() + " unclaimed instance(s) of switched-off groups",
          tx -> {
            for (List<String> chunk : Sql.chunks(quiet)) {
              List<Object> bound = new ArrayList<>();
              bound.add(nowMs);
              bound.addAll(chunk);
              bound.add(DISPATCHED.name());
              tx.update(
                  "UPDATE ax_instance SET dispatched_at_ms = ? WHERE instance_id IN ("
                      + Sql.placeholders(chunk.size())
                      + ") AND status = ?",
                  Jdbc.Binder.values(bound.toArray()));
            }
            return null;
          });
    }
    return restamp(
        fence,
        byHeld.get(false),
        "dispatched_at_ms",
        olderThanMs,
        "not claimed in time: emitted again",
        nowMs);
  }

  /** See {@link ReaperStore#adoptPredecessorDispatches}. */
  List<DueInstance> adoptPredecessorDispatches(LeaseFence fence, long nowMs, int limit) {
    return restampDispatched(
        fence,
        "epoch",
        fence.epoch(),
        "dispatched by a previous leader: emitted again at epoch " + fence.epoch(),
        nowMs,
        limit);
  }

  /**
   * DISPATCHED → DISPATCHED, stamped with this leader's epoch and {@code nowMs}, for unclaimed rows
   * whose {@code column} (a constant of this class) is below {@code below}.
   */
  private List<DueInstance> restampDispatched(
      LeaseFence fence, String column, long below, String reason, long nowMs, int limit) {
    List<String> ids =
        jdbc.query(
            "selecting instances",
            dispatchedBelowSql(column),
            Jdbc.Binder.values(DISPATCHED.name(), below, limit),
            rs -> rs.getString(1));
    return restamp(fence, ids, column, below, reason, nowMs);
  }

  /** DISPATCHED → DISPATCHED at this leader's epoch for those of {@code ids} still unclaimed. */
  private List<DueInstance> restamp(
      LeaseFence fence, List<String> ids, String column, long below, String reason, long nowMs) {
    return jdbc.move(
        "instance_id",
        ids,
        BatchMove.from(DISPATCHED)
            .<DueInstance>to(DISPATCHED)
            .set("epoch = ?, dispatched_at_ms = ?", fence.epoch(), nowMs)
            .where(column + " < ?", below)
            .fencedBy(fence)
            .readBack(DueInstance.COLUMNS, DueInstance::read)
            .audit(fence.holder(), reason),
        nowMs);
  }
}
