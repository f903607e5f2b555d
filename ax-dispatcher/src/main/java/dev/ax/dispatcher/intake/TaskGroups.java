package dev.ax.dispatcher.intake;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskStore;
import dev.ax.dispatcher.claim.TaskSpecs;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The task group of each due event's task, which decides the pool the event waits for: the event's
 * own when it names one, else cached by (task id, version), else read in one query for the misses
 * (whose specs go to {@link TaskSpecs} too: their runs will want them).
 *
 * <p>Threading: the intake's consumer thread; the cache is thread-safe and the store stateless.
 */
public final class TaskGroups {

  private final TaskStore tasks;
  private final TaskSpecs specs;
  private final Cache<String, String> groupByTask =
      Caffeine.newBuilder().maximumSize(100_000).build();

  public TaskGroups(TaskStore tasks, TaskSpecs specs) {
    this.tasks = tasks;
    this.specs = specs;
  }

  /**
   * The group of each event's task, by task id. Cached by (task id, version): an UPDATE may move a
   * task to another group, and its runs of the new version go to the new group's pool. An event
   * without a version (from an older ticker) is looked up by task id alone.
   */
  Map<String, String> of(List<TaskDueEvent> events) {
    Map<String, String> groups = new HashMap<>();
    Set<String> missing = new HashSet<>();
    for (TaskDueEvent event : events) {
      String group = event.group() != null ? event.group() : groupByTask.getIfPresent(key(event));
      if (group != null) {
        groups.put(event.taskId(), group);
      } else {
        missing.add(event.taskId());
      }
    }
    for (StoredTask task : tasks.findAll(missing).values()) {
      groupByTask.put(key(task.spec().taskId(), task.version()), task.spec().group());
      specs.put(task);
      groups.put(task.spec().taskId(), task.spec().group());
    }
    return groups;
  }

  private static String key(TaskDueEvent event) {
    return event.taskVersion() == null ? event.taskId() : key(event.taskId(), event.taskVersion());
  }

  private static String key(String taskId, int version) {
    return taskId + "#" + version;
  }
}
