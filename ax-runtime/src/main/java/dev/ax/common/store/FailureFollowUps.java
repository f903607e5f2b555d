package dev.ax.common.store;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.StatusTransitions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What follows a failed attempt once its outcome is recorded: the move to RETRYING (with the next
 * attempt's time) or to DEAD, written by both who end attempts (the dispatcher's outcomes and the
 * reaper's end of runs taken back too often). A DEAD one may end its one-shot task ({@link
 * OneShotEnd}), in the same transaction. Stateless.
 */
public final class FailureFollowUps {

  private FailureFollowUps() {}

  /**
   * FAILED/TIMEOUT → RETRYING or DEAD, as each outcome's {@link AfterFailure} says, for outcomes
   * just recorded in the caller's open transaction on {@code connection}; audited as {@code owner}.
   *
   * @throws IllegalStateException if a follow-up does not move exactly its one row
   */
  public static void record(Connection connection, List<Outcome> outcomes, String owner, long nowMs)
      throws SQLException {
    if (outcomes.isEmpty()) {
      return;
    }
    List<AuditLog.Entry> audit = new ArrayList<>();
    List<String> dead = new ArrayList<>();
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE ax_instance SET status = ?, next_attempt_at_ms = ?, updated_at_ms = ?"
                + " WHERE instance_id = ? AND status = ? AND attempt = ?")) {
      for (Outcome outcome : outcomes) {
        InstanceStatus to;
        Long nextAttemptAtMs;
        String reason;
        if (outcome.after() instanceof AfterFailure.Retry retry) {
          to = InstanceStatus.RETRYING;
          nextAttemptAtMs = retry.atMs();
          reason = retry.reason();
        } else {
          to = InstanceStatus.DEAD;
          nextAttemptAtMs = null;
          dead.add(outcome.instanceId());
          reason = ((AfterFailure.Dead) outcome.after()).reason();
        }
        StatusTransitions.require(outcome.status(), to);
        update.setString(1, to.name());
        update.setObject(2, nextAttemptAtMs);
        update.setLong(3, nowMs);
        update.setString(4, outcome.instanceId());
        update.setString(5, outcome.status().name());
        update.setInt(6, outcome.attempt());
        update.addBatch();
        audit.add(
            new AuditLog.Entry(
                outcome.instanceId(),
                outcome.taskId(),
                outcome.attempt(),
                outcome.status(),
                to,
                reason));
      }
      int[] counts = update.executeBatch();
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] != 1) {
          throw new IllegalStateException(
              "follow-up of " + outcomes.get(i).instanceId() + " updated " + counts[i] + " rows");
        }
      }
    }
    AuditLog.append(connection, audit, owner, nowMs);
    OneShotEnd.endAfter(connection, dead, nowMs);
  }
}
