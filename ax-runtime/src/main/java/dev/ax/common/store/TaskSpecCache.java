package dev.ax.common.store;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.model.Trigger;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Task specs cached by (task id, version), for the stages that fire and run instances: the hot path
 * reads each spec once, and an updated task has a new version, so it is never used with a stale
 * spec. It also remembers which task ids it has read some version of, so that a caller can read the
 * specs of new tasks ahead of time, off its hot path ({@link #unseen}, {@link #read}).
 *
 * <p>Bounded by weight, not only by count: a spec may carry up to megabytes of params, so a cache
 * of 100,000 of them could hold gigabytes. Each cached spec weighs {@link #weightOf} (its JSON
 * length in characters plus a fixed overhead), and the least recently useful are evicted beyond
 * {@code maxBytes} (default {@link #DEFAULT_MAX_BYTES}, {@code AX_SPEC_CACHE_MAX_BYTES}). The set
 * of task ids seen is bounded by count ({@code maxEntries}); a task id is at most 128 characters.
 *
 * <p>Thread-safety: every method may be called from any thread.
 */
public final class TaskSpecCache {

  private static final Logger log = LoggerFactory.getLogger(TaskSpecCache.class);

  private final TaskStore tasks;
  private final Cache<String, StoredTask> byVersion;
  private final Cache<String, Boolean> seen;

  /** The default bound of the cached specs' weight: 64 MiB. */
  public static final long DEFAULT_MAX_BYTES = 64L * 1024 * 1024;

  /** What an entry weighs beyond its JSON: the key, the parsed objects' headers. An estimate. */
  static final int ENTRY_OVERHEAD_BYTES = 256;

  public TaskSpecCache(TaskStore tasks, long maxEntries) {
    this(tasks, maxEntries, DEFAULT_MAX_BYTES);
  }

  /**
   * @param maxEntries task ids remembered as seen
   * @param maxBytes the most the cached specs weigh together ({@link #weightOf})
   */
  public TaskSpecCache(TaskStore tasks, long maxEntries, long maxBytes) {
    this.tasks = tasks;
    this.byVersion =
        Caffeine.newBuilder()
            .maximumWeight(maxBytes)
            .<String, StoredTask>weigher((key, task) -> weightOf(task))
            .build();
    this.seen = Caffeine.newBuilder().maximumSize(maxEntries).build();
  }

  /**
   * The weight of a cached spec in (estimated) bytes: its JSON length plus {@link
   * #ENTRY_OVERHEAD_BYTES}. Computed once, when the spec enters the cache (after a database read,
   * which costs far more than writing the JSON).
   */
  static int weightOf(StoredTask task) {
    long json;
    try {
      json = AxJson.writeString(TaskSpecJson.write(task.spec())).length();
    } catch (RuntimeException e) {
      // A spec built in code (not read from its JSON) may hold a value its JSON form cannot
      // express; caching it must not throw on the hot path, so it weighs as a large spec.
      json = UNWRITABLE_SPEC_BYTES;
    }
    return (int) Math.min(Integer.MAX_VALUE, json + ENTRY_OVERHEAD_BYTES);
  }

  /** The weight assumed for a spec whose JSON cannot be written. */
  static final int UNWRITABLE_SPEC_BYTES = 1024 * 1024;

  /** What the cached specs weigh now, after pending evictions. */
  public long weightBytes() {
    byVersion.cleanUp();
    return byVersion.policy().eviction().orElseThrow().weightedSize().orElseThrow();
  }

  /** Specs cached now, after pending evictions. */
  public long cachedSpecs() {
    byVersion.cleanUp();
    return byVersion.estimatedSize();
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
   * The exact spec version of each of {@code items}, keyed by {@link #key(String, int)}: from the
   * cache, else the task's current row when it is at that version, else the version an UPDATE
   * superseded ({@link TaskStore#findSuperseded}). An item whose task is gone, or whose version is
   * newer than the task's, has no entry; one whose older version is not stored (superseded before
   * AX stored versions) gets the current version, said at WARN. This is what a run executes: the
   * spec it was fired with.
   */
  public <T> Map<String, StoredTask> exact(
      Collection<T> items, Function<T, String> taskIdOf, ToIntFunction<T> versionOf) {
    Map<String, StoredTask> found = new HashMap<>();
    Map<String, Map.Entry<String, Integer>> missing = new HashMap<>();
    for (T item : items) {
      String taskId = taskIdOf.apply(item);
      int version = versionOf.applyAsInt(item);
      String key = key(taskId, version);
      StoredTask cached = byVersion.getIfPresent(key);
      if (cached != null) {
        found.put(key, cached);
      } else {
        missing.put(key, Map.entry(taskId, version));
      }
    }
    if (missing.isEmpty()) {
      return found;
    }
    Map<String, StoredTask> current =
        tasks.findAll(missing.values().stream().map(Map.Entry::getKey).distinct().toList());
    current.values().forEach(this::put);
    for (Map.Entry<String, Map.Entry<String, Integer>> want : missing.entrySet()) {
      String taskId = want.getValue().getKey();
      int version = want.getValue().getValue();
      StoredTask task = current.get(taskId);
      if (task != null && task.version() != version) {
        Optional<StoredTask> superseded = tasks.findSuperseded(taskId, version);
        if (superseded.isPresent()) {
          task = superseded.get();
          byVersion.put(want.getKey(), task);
        } else if (version > task.version()) {
          task = null; // a version the task never had: nothing to run
        } else {
          // Superseded before AX kept superseded specs (or removed by hand): the current one is
          // all there is, and the run is better run than failed as "not found".
          log.warn(
              "Version {} of task {} is not stored; its run executes version {}",
              version,
              taskId,
              task.version());
        }
      }
      if (task != null) {
        found.put(want.getKey(), task);
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

  /** The key of one version of one task's spec in {@link #exact}'s answer. */
  public static String key(String taskId, int version) {
    return taskId + "#" + version;
  }
}
