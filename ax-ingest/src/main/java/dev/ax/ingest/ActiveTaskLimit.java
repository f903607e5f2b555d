package dev.ax.ingest;

import dev.ax.common.contract.TaskCommand;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.TaskStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The per-group bound on active tasks ({@code AX_MAX_ACTIVE_TASKS_PER_GROUP}): ingest rejects a
 * CREATE that would make its group hold more than {@code limit} active tasks ({@link
 * TaskStore#countActiveByGroup} says what active means).
 *
 * <p>Per polled batch: one query for the groups' counts and one for which task ids exist already (a
 * create of an existing task is a duplicate, ignored later, and does not count), then the batch's
 * own commands count in order, so a batch cannot overshoot the limit either. A DEPENDENCY command
 * whose upstream was rejected here in the same batch is rejected too: it was validated against that
 * upstream being created.
 *
 * <p>Counts are read, not locked: two ingest replicas taking the same group's batches at once can
 * each accept up to the limit. The bound is a protection against runaway producers, not an exact
 * quota. Stateless between batches; called from ingest's consumer thread.
 */
final class ActiveTaskLimit {

  static final String CONFIG_KEY = "AX_MAX_ACTIVE_TASKS_PER_GROUP";

  private final TaskStore tasks;
  private final int limit;

  ActiveTaskLimit(TaskStore tasks, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive: " + limit);
    }
    this.tasks = tasks;
    this.limit = limit;
  }

  /**
   * The commands among {@code creates} (in batch order) that must be rejected, by index, with the
   * reason; the others fit.
   */
  Map<Integer, String> rejections(List<TaskCommand> creates) {
    Map<Integer, String> rejected = new HashMap<>();
    if (creates.isEmpty()) {
      return rejected;
    }
    Set<String> groups = new LinkedHashSet<>();
    List<String> ids = new ArrayList<>(creates.size());
    for (TaskCommand command : creates) {
      groups.add(command.spec().group());
      ids.add(command.taskId());
    }
    Map<String, Long> active = tasks.countActiveByGroup(groups);
    Set<String> existing = tasks.existing(ids);
    Set<String> counted = new HashSet<>();
    Map<String, String> rejectedIds = new HashMap<>();
    for (int i = 0; i < creates.size(); i++) {
      TaskCommand command = creates.get(i);
      String taskId = command.taskId();
      if (rejectedIds.containsKey(taskId)) {
        rejected.put(i, rejectedIds.get(taskId)); // a repeat of a rejected create: rejected too
        continue;
      }
      if (existing.contains(taskId) || counted.contains(taskId)) {
        continue; // a duplicate of a stored or accepted task: ignored later, counts nothing
      }
      String upstreamRejected = rejectedUpstream(command, rejectedIds.keySet());
      if (upstreamRejected != null) {
        String reason = "upstream '" + upstreamRejected + "' was rejected in the same batch";
        rejected.put(i, reason);
        rejectedIds.put(taskId, reason);
        continue;
      }
      String group = command.spec().group();
      long now = active.getOrDefault(group, 0L);
      if (now >= limit) {
        String reason =
            "group '"
                + group
                + "' has "
                + now
                + " active tasks, the limit is "
                + limit
                + " ("
                + CONFIG_KEY
                + ")";
        rejected.put(i, reason);
        rejectedIds.put(taskId, reason);
        continue;
      }
      counted.add(taskId);
      active.put(group, now + 1);
    }
    return rejected;
  }

  private static String rejectedUpstream(TaskCommand command, Set<String> rejectedIds) {
    if (command.spec().trigger() instanceof Trigger.Dependency dependency) {
      for (String upstream : dependency.upstreamTaskIds()) {
        if (rejectedIds.contains(upstream)) {
          return upstream;
        }
      }
    }
    return null;
  }
}
