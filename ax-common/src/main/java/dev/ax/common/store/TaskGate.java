package dev.ax.common.store;

import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The gate every path that creates or starts a run passes (DESIGN.md invariant 11): in the path's
 * own transaction, before it locks any instance row, it reads the states of the tasks concerned
 * under a shared lock on their {@code ax_task} rows. The lifecycle commands (CANCEL, DELETE, PAUSE,
 * RESUME, UPDATE) lock the same rows exclusively, so a command either committed before the read
 * (and the path sees its state) or waits until the path's move or insert committed (and then finds
 * and handles what the path made). Tasks are locked in id order, and always before their instances,
 * the order the lifecycle commands take: no deadlock between the two.
 *
 * <p>{@code LOCK IN SHARE MODE} rather than {@code FOR SHARE}: MySQL 8 and MariaDB both read it.
 * Stateless.
 */
public final class TaskGate {

  /** What a path may do for a task, by the task's state. */
  public enum Verdict {
    /** ACTIVE: the run may be created or started. */
    RUN,
    /** PAUSED: the run waits as a PAUSED instance; a RESUME fires it. */
    HOLD,
    /** CANCELLED, DELETED, or no such task: the run must not happen. */
    STOP;

    static Verdict of(String state) {
      return switch (state) {
        case "ACTIVE" -> RUN;
        case "PAUSED" -> HOLD;
        default -> STOP;
      };
    }
  }

  /** A task's state and version as read under the gate's lock. */
  public record Gated(Verdict verdict, String state, int version) {}

  private TaskGate() {}

  /**
   * Locks the rows of {@code taskIds} (shared, in id order) and returns each one's verdict; a task
   * that does not exist is {@link Verdict#STOP} with state {@code "MISSING"}.
   */
  public static Map<String, Gated> lock(JdbcTransaction statements, Collection<String> taskIds)
      throws SQLException {
    List<String> ordered = List.copyOf(new TreeSet<>(taskIds));
    Map<String, Gated> gated = new HashMap<>();
    if (!ordered.isEmpty()) {
      statements
          .queryIn(
              ordered,
              in ->
                  "SELECT task_id, state, version FROM ax_task WHERE task_id IN ("
                      + in
                      + ") ORDER BY task_id LOCK IN SHARE MODE",
              List.of(),
              rs ->
                  Map.entry(
                      rs.getString(1),
                      new Gated(Verdict.of(rs.getString(2)), rs.getString(2), rs.getInt(3))))
          .forEach(entry -> gated.put(entry.getKey(), entry.getValue()));
    }
    for (String taskId : ordered) {
      gated.putIfAbsent(taskId, new Gated(Verdict.STOP, "MISSING", 0));
    }
    return gated;
  }
}
