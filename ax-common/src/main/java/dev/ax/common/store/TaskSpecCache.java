package dev.ax.common.store;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ax.common.model.Trigger;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Task specs cached by (task id, version), for the stages that fire and run instances: the hot path
 * reads each spec once, and an updated task has a new version, so it is never used with a stale
 * spec. It also remembers which task ids it has read some version of, so that a caller can read the
 * specs of new tasks ahead of time, off its hot path ({@link #unseen}, {@link #read}).
 *
 * <p>Thread-safety: every method may be called from any thread.
 */
public final class TaskSpecCache {

  private final TaskStore tasks;
  private final Cache<String, StoredTask> byVersion;
  private final Cache<String, Boolean> seen;

  public TaskSpecCache(TaskStore tasks, long maxEntries) {
    this.tasks = tasks;
    this.byVersion = Caffeine.newBuilder().maximumSize(maxEntries).build();
    this.seen = Caffeine.newBuilder().maximumSize(maxEntries).build();
  }

  /** Those of {@code taskIds} no version of which has been read. */
  public Set<String> unseen(Collection<String> taskIds) {
    Set<String> unseen = new HashSet<>();
    for (String taskId : taskIds) {
      if (seen.getIfPresent(taskId) == null) {
        unseen.add(taskId);
      }
    }
    return unseen;
  }

  /** Reads the current specs of {@code taskIds} into the cache, in one query. */
  public void read(Collection<String> taskIds) {
    if (!taskIds.isEmpty()) {
      tasks.findAll(taskIds).values().forEach(this::put);
    }
  }

  public void put(StoredTask task) {
    byVersion.put(key(task.spec().taskId(), task.version()), task);
    seen.put(task.spec().taskId(), Boolean.TRUE);
  }

  /**
   * The specs of {@code items}' tasks, by task id: from the cache for each (task id, version) read
   * before, the rest in one query. A task that is gone has no entry.
   */
  public <T> Map<String, StoredTask> of(
      Collection<T> items, Function<T, String> taskIdOf, ToIntFunction<T> versionOf) {
    Map<String, StoredTask> found = new HashMap<>();
    Set<String> missing = new HashSet<>();
    for (T item : items) {
      String taskId = taskIdOf.apply(item);
      StoredTask cached = byVersion.getIfPresent(key(taskId, versionOf.applyAsInt(item)));
      if (cached != null) {
        found.put(taskId, cached);
      } else {
        missing.add(taskId);
      }
    }
    if (!missing.isEmpty()) {
      for (StoredTask task : tasks.findAll(missing).values()) {
        put(task);
        found.put(task.spec().taskId(), task);
      }
    }
    return found;
  }

  /**
   * Drops the one-shot ({@code ONCE}) tasks among {@code used}: their one instance has been dealt
   * with, and a one-shot spec kept until evicted would only hold memory (under a stream of one-shot
   * tasks, a full cache of specs nobody reads again, each surviving garbage collections). A later
   * need (a retry, a run-now) reads it again.
   */
  public void forgetOneShot(Collection<StoredTask> used) {
    for (StoredTask task : used) {
      if (task.spec().trigger() instanceof Trigger.Once) {
        byVersion.invalidate(key(task.spec().taskId(), task.version()));
        seen.invalidate(task.spec().taskId());
      }
    }
  }

  private static String key(String taskId, int version) {
    return taskId + "#" + version;
  }
}
