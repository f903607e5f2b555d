package dev.ax.ticker.fire;

import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.RETRYING;
import static dev.ax.common.model.InstanceStatus.RUNNING;
import static dev.ax.common.model.InstanceStatus.SCHEDULED;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.Jdbc;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads what the tasks of a batch have live for their overlap policies ({@link TaskOverlap}): their
 * runs in flight and their firings due and not fired, one query per chunk of task ids through the
 * {@code (task_id, status)} index: the tasks' live rows, never their history. A sharded firing is
 * one run (its row RUNNING until its shards settle); its shard rows are not read. Stateless;
 * thread-safe.
 */
final class TaskOverlapRead {

  /** The statuses read: in flight, and SCHEDULED (of which only those due by now count). */
  static final List<InstanceStatus> STATUSES = List.of(DISPATCHED, RUNNING, RETRYING, SCHEDULED);

  private TaskOverlapRead() {}

  /** The query for the task ids bound to {@code in} (its placeholders), then the statuses. */
  static String sql(String in) {
    return "SELECT task_id, status, seq, instance_id, due_at_ms FROM ax_instance"
        + " FORCE INDEX (ax_instance_task_status) WHERE task_id IN ("
        + in
        + ") AND status IN (?, ?, ?, ?) AND shard_of IS NULL";
  }

  private record Row(
      String taskId, InstanceStatus status, long seq, String instanceId, long dueAtMs) {}

  /** What each of {@code taskIds} has live; tasks with nothing live are absent. */
  static Map<String, TaskOverlap> of(Jdbc jdbc, Collection<String> taskIds, long nowMs) {
    List<Row> rows =
        jdbc.queryIn(
            "reading the runs in flight of " + taskIds.size() + " task(s)",
            taskIds,
            TaskOverlapRead::sql,
            STATUSES.stream().map(InstanceStatus::name).toList(),
            rs ->
                new Row(
                    rs.getString(1),
                    InstanceStatus.valueOf(rs.getString(2)),
                    rs.getLong(3),
                    rs.getString(4),
                    rs.getLong(5)));
    Map<String, List<TaskOverlap.RunInFlight>> runs = new HashMap<>();
    Map<String, List<TaskOverlap.Waiting>> waiting = new HashMap<>();
    for (Row row : rows) {
      if (row.status() != SCHEDULED) {
        runs.computeIfAbsent(row.taskId(), id -> new ArrayList<>())
            .add(new TaskOverlap.RunInFlight(row.seq(), row.instanceId(), row.status()));
      } else if (row.dueAtMs() <= nowMs) {
        waiting
            .computeIfAbsent(row.taskId(), id -> new ArrayList<>())
            .add(new TaskOverlap.Waiting(row.seq(), row.instanceId(), row.dueAtMs()));
      }
    }
    Map<String, TaskOverlap> live = new HashMap<>();
    for (String taskId : taskIds) {
      List<TaskOverlap.RunInFlight> taskRuns = runs.getOrDefault(taskId, List.of());
      List<TaskOverlap.Waiting> taskWaiting = waiting.getOrDefault(taskId, List.of());
      if (!taskRuns.isEmpty() || !taskWaiting.isEmpty()) {
        live.put(taskId, new TaskOverlap(taskRuns, taskWaiting));
      }
    }
    return live;
  }
}
