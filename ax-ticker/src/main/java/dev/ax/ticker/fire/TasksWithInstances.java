package dev.ax.ticker.fire;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.Sql;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which of some tasks have an instance in one of some statuses: the one read behind the firing's
 * {@code concurrent=false} check (a run in flight) and the chain repair's (a live instance), one
 * query per chunk of task ids through the {@code (task_id, status)} index.
 *
 * <p>Stateless; thread-safe.
 */
public final class TasksWithInstances {

  private TasksWithInstances() {}

  /**
   * The query for the tasks among the ids bound to {@code in} (its placeholders) with an instance
   * in one of {@code statuses} statuses, bound after the ids.
   */
  public static String sql(String in, int statuses) {
    return "SELECT DISTINCT task_id FROM ax_instance FORCE INDEX (ax_instance_task_status)"
        + " WHERE task_id IN ("
        + in
        + ") AND status IN ("
        + Sql.placeholders(statuses)
        + ")";
  }

  /**
   * Those of {@code taskIds} with an instance in one of {@code statuses}; {@code what} for logs.
   */
  public static Set<String> among(
      Jdbc jdbc, String what, Collection<String> taskIds, List<InstanceStatus> statuses) {
    return new HashSet<>(
        jdbc.queryIn(
            what,
            taskIds,
            in -> sql(in, statuses.size()),
            statuses.stream().map(InstanceStatus::name).toList(),
            rs -> rs.getString(1)));
  }
}
