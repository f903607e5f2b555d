package dev.ax.ingest;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.TaskState;
import dev.ax.common.store.JdbcTransaction;
import dev.ax.common.store.TaskStore;
import java.sql.SQLException;

/**
 * The bound on a group's live tasks ({@code AX_MAX_ACTIVE_TASKS_PER_GROUP}) as an UPDATE meets it:
 * an UPDATE that would add a live task to a group already holding the limit is refused, as a CREATE
 * is ({@link ActiveTaskLimit}). It adds one when the task is live afterwards (an ENDED one-shot
 * task becomes ACTIVE again) and was not live in that group before: a move to another group, or a
 * finished task given a new spec. Counted inside the UPDATE's transaction. Immutable and
 * thread-safe.
 */
final class GroupRoom {

  private final int maxLivePerGroup;

  /**
   * @param maxLivePerGroup the limit; {@link Integer#MAX_VALUE} for none (tests of other rules)
   */
  GroupRoom(int maxLivePerGroup) {
    if (maxLivePerGroup < 1) {
      throw new IllegalArgumentException("the limit must be positive: " + maxLivePerGroup);
    }
    this.maxLivePerGroup = maxLivePerGroup;
  }

  /**
   * Why an UPDATE of {@code taskId}, now {@code state} in {@code groupBefore}, to {@code spec} may
   * not be applied for want of room in its group; null when it may.
   */
  String refusal(
      JdbcTransaction statements, String taskId, TaskState state, String groupBefore, TaskSpec spec)
      throws SQLException {
    if (maxLivePerGroup == Integer.MAX_VALUE) {
      return null;
    }
    boolean liveBefore = state == TaskState.ACTIVE || state == TaskState.PAUSED;
    boolean liveAfter = liveBefore || state == TaskState.ENDED;
    if (!liveAfter || (liveBefore && spec.group().equals(groupBefore))) {
      return null;
    }
    long live =
        statements
            .queryFirst(TaskStore.liveCountSql("?"), values(spec.group()), rs -> rs.getLong(2))
            .orElse(0L);
    if (live < maxLivePerGroup) {
      return null;
    }
    return "UPDATE of "
        + taskId
        + " would add a live task to group '"
        + spec.group()
        + "', which has "
        + live
        + "; the limit is "
        + maxLivePerGroup
        + " ("
        + ActiveTaskLimit.CONFIG_KEY
        + ")";
  }
}
