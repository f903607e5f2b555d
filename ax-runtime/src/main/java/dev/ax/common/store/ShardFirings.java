package dev.ax.common.store;

import static dev.ax.common.model.InstanceStatus.DEAD;
import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.FAILED;
import static dev.ax.common.model.InstanceStatus.RUNNING;

import dev.ax.common.contract.ShardSummary;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.ShardIds;
import dev.ax.common.model.StatusTransitions;
import dev.ax.common.model.TriggerType;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The SQL of sharded firings, inside the caller's transaction. A firing of a task with {@code
 * "sharding": {"total": N}} is claimed like any instance; instead of running it, its dispatcher
 * {@linkplain #fanOut fans it out}: the firing stays RUNNING, but owned by {@link #OWNER} with no
 * lease (so no dispatcher renews it and the reaper never takes it back), and N shard instances are
 * created DISPATCHED, due when the firing was, with deterministic ids ({@link ShardIds}). Each
 * shard is then claimed, run, retried and dead-lettered on its own. When its last shard has ended,
 * the firing is {@linkplain #settle settled}: SUCCESS when every shard succeeded, FAILED then DEAD
 * when any became a dead letter, else CANCELLED (shards cancelled or skipped) — exactly once, since
 * it moves only from RUNNING owned by {@link #OWNER}.
 *
 * <p>Two shards ending at once in two transactions must not both miss the end: {@link #settle}
 * locks the firing's row before it reads its shards, and reads them with a plain read at READ
 * COMMITTED (the stages' isolation), so whichever transaction takes the lock second sees the
 * other's shard ended; the plain read waits on no shard row. A lifecycle command that interrupts
 * the task's runs locks the firing's row before its RUNNING shards, the opposite order to an
 * outcome's (shard, then firing): the two can deadlock, which the database breaks by rolling one
 * back, and the transaction is tried again.
 *
 * <p>Stateless.
 */
public final class ShardFirings {

  /** The owner of a firing whose shards are running: no dispatcher, no lease. */
  public static final String OWNER = "ax-shards";

  private static final List<String> SHARD_COLUMNS =
      List.of(
          "instance_id",
          "task_id",
          "task_version",
          "status",
          "attempt",
          "due_at_ms",
          "trace_id",
          "created_at_ms",
          "updated_at_ms",
          "dispatched_at_ms",
          "epoch",
          "flow_run_id",
          "one_shot",
          "shard_of",
          "shard_index",
          "shard_total");

  private ShardFirings() {}

  /**
   * A claimed firing to fan out: the row as its claim read it.
   *
   * @param flowRunId the flow run it belongs to (its own id when it started one)
   */
  public record Firing(
      String instanceId,
      String taskId,
      int taskVersion,
      int attempt,
      long dueAtMs,
      String traceId,
      String flowRunId) {}

  /**
   * A firing whose last shard ended, as {@link #settle} left it.
   *
   * @param status SUCCESS, DEAD or CANCELLED
   * @param error for DEAD and CANCELLED, which shards did not succeed
   * @param triggerType its task's, null when the task is gone
   */
  public record Settled(
      String instanceId,
      String taskId,
      int attempt,
      InstanceStatus status,
      String error,
      long dueAtMs,
      long claimedAtMs,
      String traceId,
      String flowRunId,
      TriggerType triggerType,
      ShardSummary shards) {}

  /**
   * Fans {@code firing} out into {@code total} shards, if this owner still runs that attempt of it
   * (its lease may have expired and the firing been taken back): shards that exist already (a
   * fan-out repeated after its dispatcher died) are left as they are.
   *
   * @param epoch the ticker lease's epoch their due events carry, stamped on the shards as the
   *     ticker stamps what it fires (so that its reaper does not take them for a previous leader's)
   * @return the shards created, to be emitted as due events; empty when the firing is no longer
   *     this owner's
   */
  public static List<DueInstance> fanOut(
      Connection connection, Firing firing, int total, String owner, long epoch, long nowMs)
      throws SQLException {
    JdbcTransaction tx = new JdbcTransaction(connection);
    int moved =
        tx.update(
            "UPDATE ax_instance SET owner = ?, lease_until_ms = NULL, shard_total = ?,"
                + " updated_at_ms = ? WHERE instance_id = ? AND status = 'RUNNING'"
                + " AND owner = ? AND attempt = ?",
            Jdbc.Binder.values(OWNER, total, nowMs, firing.instanceId(), owner, firing.attempt()));
    if (moved == 0) {
      return List.of();
    }
    List<String> ids = new ArrayList<>(total);
    for (int i = 0; i < total; i++) {
      ids.add(ShardIds.of(firing.instanceId(), firing.taskId(), i, total));
    }
    Set<String> existing = Sql.existing(connection, "ax_instance", "instance_id", ids);
    List<Object[]> rows = new ArrayList<>();
    List<AuditLog.Entry> audit = new ArrayList<>();
    audit.add(
        new AuditLog.Entry(
            firing.instanceId(),
            firing.taskId(),
            firing.attempt(),
            RUNNING,
            RUNNING,
            "fanned out into " + total + " shards"));
    for (int i = 0; i < total; i++) {
      if (existing.contains(ids.get(i))) {
        continue;
      }
      rows.add(
          new Object[] {
            ids.get(i),
            firing.taskId(),
            firing.taskVersion(),
            DISPATCHED.name(),
            0,
            firing.dueAtMs(),
            firing.traceId(),
            nowMs,
            nowMs,
            nowMs,
            epoch,
            firing.flowRunId(),
            0,
            firing.instanceId(),
            i,
            total
          });
      audit.add(
          new AuditLog.Entry(
              ids.get(i),
              firing.taskId(),
              0,
              null,
              DISPATCHED,
              "shard " + i + " of " + total + " of " + firing.instanceId()));
    }
    if (!rows.isEmpty()) {
      Sql.insertRows(connection, "ax_instance", SHARD_COLUMNS, rows);
    }
    AuditLog.append(connection, audit, owner, nowMs);
    List<String> created = new ArrayList<>();
    for (Object[] row : rows) {
      created.add((String) row[0]);
    }
    return tx.queryIn(
        created,
        in ->
            "SELECT " + DueInstance.COLUMNS + " FROM ax_instance WHERE instance_id IN (" + in + ")",
        List.of(),
        DueInstance::read);
  }

  /**
   * Settles those of {@code firingIds} whose shards have all ended (see the class comment); the
   * others, and ids that are not fanned-out firings, are left as they are.
   *
   * @param actor who settles (recorded in the audit rows)
   * @return the firings settled, for their completion events
   */
  public static List<Settled> settle(
      Connection connection, Collection<String> firingIds, String actor, long nowMs)
      throws SQLException {
    if (firingIds.isEmpty()) {
      return List.of();
    }
    JdbcTransaction tx = new JdbcTransaction(connection);
    List<FiringRow> firings =
        tx.queryIn(
            new TreeSet<>(firingIds),
            in ->
                // Only the firing rows are locked: a lock on the task's row here could deadlock
                // with a lifecycle command, which locks the task's row before its instances.
                "SELECT instance_id, task_id, attempt, due_at_ms, claimed_at_ms, trace_id,"
                    + " flow_run_id, shard_total,"
                    + " (SELECT t.trigger_type FROM ax_task t WHERE t.task_id = i.task_id)"
                    + " FROM ax_instance i WHERE instance_id IN ("
                    + in
                    + ") AND status = 'RUNNING' AND owner = ? AND shard_total > 1"
                    + " ORDER BY instance_id FOR UPDATE",
            List.of(OWNER),
            rs ->
                new FiringRow(
                    rs.getString(1),
                    rs.getString(2),
                    rs.getInt(3),
                    rs.getLong(4),
                    rs.getLong(5),
                    rs.getString(6),
                    rs.getString(7),
                    rs.getInt(8),
                    rs.getString(9)));
    List<Settled> settled = new ArrayList<>();
    for (FiringRow firing : firings) {
      Settled done = settleOne(tx, connection, firing, actor, nowMs);
      if (done != null) {
        settled.add(done);
      }
    }
    if (!settled.isEmpty()) {
      OneShotEnd.endAfter(connection, settled.stream().map(Settled::instanceId).toList(), nowMs);
    }
    return settled;
  }

  private record FiringRow(
      String instanceId,
      String taskId,
      int attempt,
      long dueAtMs,
      long claimedAtMs,
      String traceId,
      String flowRunId,
      int total,
      String triggerType) {}

  /** Settles {@code firing} if its shards have all ended; null if not. */
  private static Settled settleOne(
      JdbcTransaction tx, Connection connection, FiringRow firing, String actor, long nowMs)
      throws SQLException {
    Map<Integer, InstanceStatus> shards =
        statusOfShards(tx, firing.instanceId(), firing.taskId(), firing.total());
    if (!shards.values().stream().allMatch(InstanceStatus::isTerminal)) {
      return null;
    }
    ShardTally tally = ShardTally.of(firing.total(), shards);
    InstanceStatus status = tally.status();
    String error = tally.error();
    List<InstanceStatus> path = status == DEAD ? List.of(FAILED, DEAD) : List.of(status);
    InstanceStatus from = RUNNING;
    for (InstanceStatus to : path) {
      StatusTransitions.require(from, to);
      int moved =
          tx.update(
              "UPDATE ax_instance SET status = ?, finished_at_ms = ?, last_error = ?,"
                  + " updated_at_ms = ? WHERE instance_id = ? AND status = ?",
              Jdbc.Binder.values(
                  to.name(),
                  nowMs,
                  error == null ? null : Sql.truncate(error, 2048),
                  nowMs,
                  firing.instanceId(),
                  from.name()));
      if (moved != 1) {
        throw new IllegalStateException(
            "firing " + firing.instanceId() + " locked RUNNING but moved " + moved + " rows");
      }
      tx.audit(
          firing.instanceId(),
          firing.taskId(),
          firing.attempt(),
          from,
          to,
          error == null ? "every shard succeeded" : error,
          actor,
          nowMs);
      from = to;
    }
    return new Settled(
        firing.instanceId(),
        firing.taskId(),
        firing.attempt(),
        status,
        error,
        firing.dueAtMs(),
        firing.claimedAtMs(),
        firing.traceId(),
        InstanceIds.flowRunOf(firing.instanceId(), firing.flowRunId()),
        firing.triggerType() == null ? null : TriggerType.valueOf(firing.triggerType()),
        tally.summary());
  }

  /**
   * The status of each stored shard of firing {@code firingId} of {@code taskId}, by index (a shard
   * retention removed is absent): a plain read, by primary key.
   */
  static Map<Integer, InstanceStatus> statusOfShards(
      JdbcTransaction tx, String firingId, String taskId, int total) throws SQLException {
    Map<String, Integer> indexOf = new HashMap<>();
    for (int i = 0; i < total; i++) {
      indexOf.put(ShardIds.of(firingId, taskId, i, total), i);
    }
    Map<Integer, InstanceStatus> statuses = new HashMap<>();
    tx.queryIn(
            indexOf.keySet(),
            in -> "SELECT instance_id, status FROM ax_instance WHERE instance_id IN (" + in + ")",
            List.of(),
            rs -> Map.entry(indexOf.get(rs.getString(1)), InstanceStatus.valueOf(rs.getString(2))))
        .forEach(shard -> statuses.put(shard.getKey(), shard.getValue()));
    return statuses;
  }
}
