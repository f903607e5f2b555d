package dev.ax.ingest;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.kafka.Topics;
import dev.ax.common.model.TaskState;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.Sql;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Ingest's SQL for PAUSE and RESUME of a whole group, a page of tasks at a time: {@link #page}
 * reads the next task ids of the group in the state the command applies to (ACTIVE for PAUSE,
 * PAUSED for RESUME), by task id, and {@link #apply} applies the command to each of them in one
 * transaction, each task exactly as a PAUSE or RESUME naming it would ({@link
 * TaskLifecycleStore#applyIn}: its row locked and its state checked again, its own conditional
 * UPDATEs and audit rows, the command's id recorded for it). So a task that changed between the
 * read and the transaction is simply refused, and a command delivered again finds its id recorded
 * for every task it changed and changes none of them again.
 *
 * <p>The page read takes no lock: a page transaction locks its own tasks' rows by primary key, and
 * nothing else of the group.
 *
 * <p>Thread-safe (stateless over a pool).
 */
final class GroupLifecycleStore {

  /** One task of a page, with its trigger-group key (where its announcements go). */
  record GroupTask(String taskId, String triggerGroup) {}

  /** What one page came to. */
  record PageResult(
      int applied,
      int duplicates,
      int refused,
      int instances,
      List<Resumed> resumed,
      int pausedFiringsSkipped) {}

  /** The instances a RESUME made SCHEDULED again, for one task. */
  record Resumed(GroupTask task, List<DueInstance> instances) {}

  /**
   * A page of a group's tasks in one state, by task id: the range of {@code ax_task_group_active
   * (task_group, state, trigger_type)} for the group and state, sorted by task id, so a page costs
   * the group's tasks in that state (see docs/ARCHITECTURE.md, "Not built yet").
   */
  static final String PAGE =
      "SELECT task_id, trigger_group FROM ax_task WHERE task_group = ? AND state = ?"
          + " AND task_id > ? ORDER BY task_id LIMIT ?";

  /** Whether a group holds a task that is not DELETED. */
  static final String ANY_TASK =
      "SELECT 1 FROM ax_task WHERE task_group = ? AND state <> "
          + Sql.literals(TaskState.DELETED)
          + " LIMIT 1";

  private final Jdbc jdbc;
  private final Topics topics;

  /** With the unprefixed topics: for tests that read no events. */
  GroupLifecycleStore(DataSource dataSource) {
    this(dataSource, new Topics(""));
  }

  GroupLifecycleStore(DataSource dataSource, Topics topics) {
    this.jdbc = new Jdbc(dataSource);
    this.topics = topics;
  }

  /**
   * Up to {@code limit} tasks of {@code group} in the one state {@code transition} applies to,
   * after {@code afterTaskId} (empty: from the start), by task id.
   */
  List<GroupTask> page(
      TaskLifecycleStore.Transition transition, String group, String afterTaskId, int limit) {
    if (transition.fromStates().size() != 1) {
      throw new IllegalArgumentException(transition.name() + " does not apply to a group");
    }
    return jdbc.query(
        "reading a page of group " + group,
        PAGE,
        values(group, transition.fromStates().iterator().next().name(), afterTaskId, limit),
        rs -> new GroupTask(rs.getString(1), rs.getString(2)));
  }

  /** Applies {@code transition} to each task of {@code page}, in one transaction. */
  PageResult apply(
      TaskLifecycleStore.Transition transition,
      TaskLifecycleStore.Request groupRequest,
      List<GroupTask> page) {
    return jdbc.inPacketTransaction(
        transition.verb() + " " + page.size() + " task(s) of group " + groupRequest.group(),
        tx -> {
          int applied = 0;
          int duplicates = 0;
          int refused = 0;
          int instances = 0;
          int pausedSkipped = 0;
          List<Resumed> resumed = new ArrayList<>();
          for (GroupTask task : page) {
            TaskLifecycleStore.Result result =
                TaskLifecycleStore.applyIn(
                    tx, transition, groupRequest.forTask(task.taskId()), topics);
            if (result instanceof TaskLifecycleStore.Result.Applied done) {
              applied++;
              instances += done.instances();
              pausedSkipped += done.pausedFiringsSkipped();
              if (!done.toAnnounce().isEmpty()) {
                resumed.add(new Resumed(task, done.toAnnounce()));
              }
            } else if (result instanceof TaskLifecycleStore.Result.Duplicate) {
              duplicates++;
            } else {
              refused++; // changed since the page was read: left as it is now
            }
          }
          return new PageResult(applied, duplicates, refused, instances, resumed, pausedSkipped);
        });
  }

  /** True when {@code group} holds a task that is not DELETED. */
  boolean hasTasks(String group) {
    return jdbc.queryFirst(
            "looking for tasks of group " + group, ANY_TASK, values(group), rs -> rs.getInt(1))
        .isPresent();
  }
}
