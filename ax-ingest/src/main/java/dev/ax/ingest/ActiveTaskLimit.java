package dev.ax.ingest;

import dev.ax.common.contract.TaskCommand;
import dev.ax.common.model.Namespace;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.TaskStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The per-group bound on live tasks ({@code AX_MAX_ACTIVE_TASKS_PER_GROUP}): ingest rejects a
 * CREATE that would make its group hold more than {@code limit} live tasks ({@link
 * TaskStore#countActiveByGroup} says what live means). The same class, of {@link Scope#NAMESPACE},
 * bounds a namespace's live tasks ({@code AX_MAX_ACTIVE_TASKS_PER_NAMESPACE}; every namespace but
 * the default one), counted over its groups ({@link TaskStore#countActiveByNamespace}).
 *
 * <p>Per polled batch: one query for the groups' counts and one for which task ids exist already (a
 * create of an existing task is a duplicate, ignored later, and does not count), then the batch's
 * own commands count in order, so a batch cannot overshoot the limit either. A DEPENDENCY command
 * whose upstream was rejected here in the same batch is rejected too: it was validated against that
 * upstream being created.
 *
 * <p>The count is an index range over the group's live tasks (ACTIVE or PAUSED), so at the seeds'
 * volume it still walks millions of index entries: it is not read for every batch. After a read,
 * this keeps an upper bound per group (the count read plus every create accepted since) and reads
 * again only when the bound plus the batch could pass the limit, or when the creates accepted since
 * the read have used a quarter of the room the read left ({@code (limit - count) / 4}, at least
 * one). A batch that fits under the bound is accepted without a query; any batch that could be
 * refused is judged on a fresh count, so what is refused is the same as with a query per batch.
 * Tasks that end or are cancelled meanwhile only make the bound higher than the truth.
 *
 * <p>Counts are read, not locked: two ingest replicas taking the same group's batches at once can
 * each accept up to the limit (and one replica's bound does not see the other's creates until its
 * next read). The bound is a protection against runaway producers, not an exact quota. Not
 * thread-safe: called from ingest's consumer thread only.
 */
final class ActiveTaskLimit {

  static final String CONFIG_KEY = "AX_MAX_ACTIVE_TASKS_PER_GROUP";

  static final String NAMESPACE_CONFIG_KEY = "AX_MAX_ACTIVE_TASKS_PER_NAMESPACE";

  /**
   * What one limit counts by: the group of a create (the stored, namespaced group), or its
   * namespace (null for the default namespace, which has no namespace-wide limit).
   *
   * @param keyOf the key a create counts under; null: not limited here
   * @param noun how a refusal names the key
   * @param configKey the setting a refusal names
   */
  record Scope(Function<TaskCommand, String> keyOf, String noun, String configKey) {

    static final Scope GROUP = new Scope(c -> c.spec().group(), "group", CONFIG_KEY);

    static final Scope NAMESPACE =
        new Scope(
            c -> {
              Namespace namespace = Namespace.of(c.taskId());
              return namespace.isDefault() ? null : namespace.name();
            },
            "namespace",
            NAMESPACE_CONFIG_KEY);
  }

  /** Groups whose upper bound is kept; the least recently used beyond it are read again. */
  static final int MAX_GROUPS_KEPT = 10_000;

  /**
   * A group's count as {@code read}, plus the creates accepted since ({@code upper}); reread once
   * those creates reach {@code rereadAfterCreates}. A value: each accepted create replaces it.
   */
  private record Bound(long read, long rereadAfterCreates, long upper) {

    /** The bound right after a count found {@code read} live tasks in a group of {@code limit}. */
    static Bound afterRead(long read, int limit) {
      return new Bound(read, Math.max(1, (limit - read) / 4), read);
    }

    /** The same read, the upper bound now {@code newUpper}. */
    Bound withUpper(long newUpper) {
      return new Bound(read, rereadAfterCreates, newUpper);
    }

    /** Whether {@code creates} more keep this bound usable without a fresh count. */
    boolean admits(int creates, int limit) {
      return upper + creates <= limit && upper + creates - read < rereadAfterCreates;
    }
  }

  /** What the limit reads from the database: {@link TaskStore}'s, a fake in unit tests. */
  interface Counts {
    /** {@link TaskStore#countActiveByGroup}. */
    Map<String, Long> liveByGroup(Collection<String> groups);

    /** {@link TaskStore#existing}. */
    Set<String> existing(Collection<String> taskIds);
  }

  private final Counts tasks;
  private final int limit;
  private final Scope scope;
  private int reads;
  private final Map<String, Bound> bounds =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Bound> eldest) {
          return size() > MAX_GROUPS_KEPT;
        }
      };

  ActiveTaskLimit(TaskStore tasks, int limit) {
    this(tasks, limit, Scope.GROUP);
  }

  /** The limit of {@code scope} over the stored tasks. */
  ActiveTaskLimit(TaskStore tasks, int limit, Scope scope) {
    this(
        new Counts() {
          @Override
          public Map<String, Long> liveByGroup(Collection<String> keys) {
            return scope == Scope.NAMESPACE
                ? tasks.countActiveByNamespace(keys)
                : tasks.countActiveByGroup(keys);
          }

          @Override
          public Set<String> existing(Collection<String> taskIds) {
            return tasks.existing(taskIds);
          }
        },
        limit,
        scope);
  }

  ActiveTaskLimit(Counts tasks, int limit) {
    this(tasks, limit, Scope.GROUP);
  }

  ActiveTaskLimit(Counts tasks, int limit, Scope scope) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive: " + limit);
    }
    this.tasks = tasks;
    this.limit = limit;
    this.scope = scope;
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
    Map<String, Integer> perGroup = new LinkedHashMap<>();
    List<String> ids = new ArrayList<>(creates.size());
    for (TaskCommand command : creates) {
      String key = scope.keyOf().apply(command);
      if (key != null) {
        perGroup.merge(key, 1, Integer::sum);
      }
      ids.add(command.taskId());
    }
    if (perGroup.isEmpty()) {
      return rejected; // nothing this limit counts
    }
    if (fitsUnderBounds(perGroup)) {
      perGroup.forEach((group, count) -> raiseBound(group, bounds.get(group).upper() + count));
      return rejected;
    }
    Set<String> groups = perGroup.keySet();
    Map<String, Long> active = tasks.liveByGroup(groups);
    reads++;
    for (String group : groups) {
      bounds.put(group, Bound.afterRead(active.getOrDefault(group, 0L), limit));
    }
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
      String group = scope.keyOf().apply(command);
      if (group == null) {
        continue;
      }
      long now = active.getOrDefault(group, 0L);
      if (now >= limit) {
        String reason =
            scope.noun()
                + " '"
                + group
                + "' has "
                + now
                + " active tasks, the limit is "
                + limit
                + " ("
                + scope.configKey()
                + ")";
        rejected.put(i, reason);
        rejectedIds.put(taskId, reason);
        continue;
      }
      counted.add(taskId);
      active.put(group, now + 1);
      raiseBound(group, now + 1);
    }
    return rejected;
  }

  private void raiseBound(String group, long upper) {
    bounds.put(group, bounds.get(group).withUpper(upper));
  }

  /** How many times the counts were read: what the re-read rule saves, for tests. */
  int reads() {
    return reads;
  }

  /** Whether every group's kept bound leaves room for the batch's creates without a fresh count. */
  private boolean fitsUnderBounds(Map<String, Integer> perGroup) {
    for (Map.Entry<String, Integer> entry : perGroup.entrySet()) {
      Bound bound = bounds.get(entry.getKey());
      if (bound == null || !bound.admits(entry.getValue(), limit)) {
        return false;
      }
    }
    return true;
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
