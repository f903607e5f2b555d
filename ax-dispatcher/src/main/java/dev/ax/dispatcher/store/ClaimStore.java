package dev.ax.dispatcher.store;

import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.RUNNING;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.JdbcTransaction;
import dev.ax.common.store.Sql;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The dispatcher's claim and lease SQL over {@code ax_instance}: DISPATCHED → RUNNING for the held
 * instances it wins (one batch move, one round trip), and the renewal of the run leases of the
 * attempts it is still running. Only the dispatcher writes these (tests read them too).
 *
 * <p>Thread-safe (stateless over a pool).
 */
public final class ClaimStore {

  /**
   * The audit reason of {@link #releaseUnstarted}: at a stop, or after waiting in a pool's queue
   * past its bound.
   */
  public static final String RELEASED_UNSTARTED = "claimed, never started: released";

  private final Jdbc jdbc;

  public ClaimStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * DISPATCHED → RUNNING for the given instances that are due at {@code nowMs}, owned by {@code
   * owner} until {@code leaseUntilMs}, with the attempt number incremented. An instance not due yet
   * is never claimed: nothing starts before its due time, whoever emitted it.
   *
   * @return the instances this dispatcher won; the rest belong to someone else or are not due
   */
  public List<ClaimedInstance> claim(
      Collection<String> instanceIds, String owner, long leaseUntilMs, long nowMs) {
    return jdbc.move("instance_id", instanceIds, claimMove(owner, leaseUntilMs, nowMs), nowMs);
  }

  /** DISPATCHED → RUNNING for rows due at {@code nowMs}. */
  private static BatchMove<ClaimedInstance> claimMove(String owner, long leaseUntilMs, long nowMs) {
    return BatchMove.from(DISPATCHED)
        .<ClaimedInstance>to(RUNNING)
        .set(
            "attempt = attempt + 1, owner = ?, lease_until_ms = ?, claimed_at_ms = ?",
            owner,
            leaseUntilMs,
            nowMs)
        .where("due_at_ms <= ?", nowMs)
        .readBack(
            "instance_id, task_id, task_version, attempt, due_at_ms, trace_id, retry_base, seq,"
                + " flow_run_id, taken_back, shard_of, shard_index, shard_total",
            rs ->
                new ClaimedInstance(
                    rs.getString(1),
                    rs.getString(2),
                    rs.getInt(3),
                    rs.getInt(4),
                    rs.getLong(5),
                    nowMs,
                    rs.getString(6),
                    rs.getInt(7),
                    rs.getLong(8),
                    InstanceIds.flowRunOf(rs.getString(1), rs.getString(9)),
                    rs.getInt(10),
                    rs.getString(11),
                    rs.getInt(12),
                    Math.max(1, rs.getInt(13))))
        .audit(owner, "claimed");
  }

  /**
   * RUNNING → DISPATCHED for attempts this owner claimed and never started (still queued when its
   * stop's grace ran out, or past its pool's queue bound), with the attempt number as before the
   * claim: the attempt never began, so the next claim starts it again, it uses up no retry and no
   * take-back, and nobody waits for its lease. Conditional on each row still being RUNNING that
   * attempt for this owner. {@code dispatched_at_ms} is stamped {@code nowMs}, so the reaper emits
   * the row again once it has gone unclaimed for {@code AX_REAPER_UNCLAIMED_AFTER}.
   *
   * <p>The audit row of the release gives the attempt released (RUNNING → DISPATCHED at that
   * attempt, "claimed, never started: released"), so the log shows that attempt's claim twice with
   * the release between them: a start is a claim not followed by a release.
   *
   * @return the instance ids released (the others were settled or taken back meanwhile)
   */
  public List<String> releaseUnstarted(
      Collection<ClaimedInstance> unstarted, String owner, long nowMs) {
    List<String> released = new ArrayList<>();
    for (List<ClaimedInstance> chunk : Sql.chunks(unstarted)) {
      List<Object> attemptOf = new ArrayList<>(chunk.size() * 2 + 1);
      for (ClaimedInstance claimed : chunk) {
        attemptOf.add(claimed.instanceId());
        attemptOf.add(claimed.attempt());
      }
      attemptOf.add(owner);
      released.addAll(
          jdbc.move(
              "instance_id",
              chunk.stream().map(ClaimedInstance::instanceId).toList(),
              BatchMove.from(RUNNING)
                  .<String>to(DISPATCHED)
                  .set(
                      "attempt = attempt - 1, owner = NULL, lease_until_ms = NULL,"
                          + " dispatched_at_ms = ?",
                      nowMs)
                  .where(
                      "attempt = " + RunKey.caseByInstanceId(chunk.size()) + " AND owner = ?",
                      attemptOf.toArray())
                  .auditedAttempt("attempt + 1")
                  .readBack("instance_id", rs -> rs.getString(1))
                  .audit(owner, RELEASED_UNSTARTED),
              nowMs));
    }
    return released;
  }

  /**
   * Extends the run lease of attempts this owner still holds (RUNNING, this owner, this attempt),
   * so the reaper only takes back runs whose dispatcher really died, and says which of {@code runs}
   * this owner no longer holds, and why. Not a status change: no audit row.
   *
   * <p>One transaction: the UPDATE, then, only when it extended fewer leases than it was given, one
   * read of those rows by primary key. The rows it extended stay locked by it until the commit, so
   * the read agrees with it; a row it did not extend cannot become this owner's attempt again.
   *
   * @return the leases extended and the runs lost: outcome recorded, cancelled, taken back (the
   *     reaper's, or a later attempt elsewhere), or gone
   */
  public LeaseRenewal renewLeases(
      Collection<RunKey> runs, String owner, long leaseUntilMs, long nowMs) {
    if (runs.isEmpty()) {
      return new LeaseRenewal(0, Map.of());
    }
    // One key per instance: only its latest attempt can still match the row.
    Map<String, RunKey> latest = new HashMap<>();
    for (RunKey run : runs) {
      latest.merge(run.instanceId(), run, (a, b) -> a.attempt() >= b.attempt() ? a : b);
    }
    Map<RunKey, String> lost = new HashMap<>();
    for (RunKey run : runs) {
      if (!run.equals(latest.get(run.instanceId()))) {
        lost.put(run, "a later attempt of its instance runs here");
      }
    }
    return jdbc.inTransaction(
        "renewing " + runs.size() + " run lease(s)",
        transaction -> {
          int renewed = 0;
          for (List<RunKey> chunk : Sql.chunks(latest.values())) {
            renewed += extend(transaction, chunk, owner, leaseUntilMs, nowMs);
          }
          if (renewed < latest.size()) {
            lost.putAll(notHeld(transaction, latest, owner));
          }
          return new LeaseRenewal(renewed, Map.copyOf(lost));
        });
  }

  /**
   * What a lease renewal learned.
   *
   * @param renewed how many leases it extended
   * @param lost the runs this owner no longer holds, each with why (for its log line)
   */
  public record LeaseRenewal(int renewed, Map<RunKey, String> lost) {}

  private static int extend(
      JdbcTransaction transaction, List<RunKey> chunk, String owner, long leaseUntilMs, long nowMs)
      throws SQLException {
    return transaction.update(
        "UPDATE ax_instance FORCE INDEX (PRIMARY) SET lease_until_ms = ?,"
            + " updated_at_ms = ? WHERE instance_id IN ("
            + Sql.placeholders(chunk.size())
            + ") AND attempt = "
            + RunKey.caseByInstanceId(chunk.size())
            + " AND status = ? AND owner = ?",
        update -> {
          int index = 1;
          update.setLong(index++, leaseUntilMs);
          update.setLong(index++, nowMs);
          for (RunKey run : chunk) {
            update.setString(index++, run.instanceId());
          }
          for (RunKey run : chunk) {
            update.setString(index++, run.instanceId());
            update.setInt(index++, run.attempt());
          }
          update.setString(index++, RUNNING.name());
          update.setString(index, owner);
        });
  }

  /** The row of an instance as a renewal reads it back. */
  private record Held(InstanceStatus status, int attempt, String owner) {}

  /** Those of {@code latest} whose row is not RUNNING at that attempt for {@code owner}. */
  private static Map<RunKey, String> notHeld(
      JdbcTransaction transaction, Map<String, RunKey> latest, String owner) throws SQLException {
    Map<String, Held> rows = new HashMap<>();
    for (Map.Entry<String, Held> row :
        transaction.queryIn(
            latest.keySet(),
            in ->
                "SELECT instance_id, status, attempt, owner FROM ax_instance FORCE INDEX (PRIMARY)"
                    + " WHERE instance_id IN ("
                    + in
                    + ")",
            List.of(),
            rs ->
                Map.entry(
                    rs.getString(1),
                    new Held(
                        InstanceStatus.valueOf(rs.getString(2)), rs.getInt(3), rs.getString(4))))) {
      rows.put(row.getKey(), row.getValue());
    }
    Map<RunKey, String> lost = new HashMap<>();
    for (RunKey run : latest.values()) {
      Held row = rows.get(run.instanceId());
      if (row == null) {
        lost.put(run, "its instance no longer exists");
      } else if (row.status() == InstanceStatus.CANCELLED) {
        lost.put(run, "its instance was cancelled (CANCEL with interrupt)");
      } else if (row.status() == RUNNING
          && row.attempt() == run.attempt()
          && owner.equals(row.owner())) {
        continue; // still held (the UPDATE extended it)
      } else if (row.attempt() == run.attempt()
          && row.status() != RUNNING
          && row.status() != DISPATCHED) {
        lost.put(run, "its outcome is recorded (" + row.status() + ")");
      } else {
        lost.put(
            run,
            "it was taken back: the instance is "
                + row.status()
                + " at attempt "
                + row.attempt()
                + (row.owner() == null ? "" : ", held by " + row.owner()));
      }
    }
    return lost;
  }
}
