package dev.ax.ingest;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Cycle detection for dependency tasks: would task {@code taskId} waiting for {@code upstreams}
 * close a cycle? Walks upstream from each upstream, a level at a time, through {@code upstreamsOf}
 * (one lookup per level, e.g. one query), until it finds {@code taskId} or runs out. Pure apart
 * from the lookup.
 */
public final class DependencyGraph {

  private DependencyGraph() {}

  /**
   * @param upstreamsOf the upstreams of each task asked about that has any
   * @return the cycle as a path {@code taskId -> ... -> taskId}, or empty when there is none
   */
  public static Optional<List<String>> cycleThrough(
      String taskId,
      Collection<String> upstreams,
      Function<Collection<String>, Map<String, List<String>>> upstreamsOf) {
    // Breadth-first over "x waits for y" edges, remembering how each task was reached.
    Map<String, String> reachedFrom = new java.util.HashMap<>();
    Deque<String> level = new ArrayDeque<>();
    for (String upstream : upstreams) {
      if (reachedFrom.putIfAbsent(upstream, taskId) == null) {
        level.add(upstream);
      }
    }
    Set<String> seen = new HashSet<>(level);
    while (!level.isEmpty()) {
      if (level.contains(taskId)) {
        return Optional.of(path(taskId, reachedFrom));
      }
      Map<String, List<String>> next = upstreamsOf.apply(List.copyOf(level));
      Deque<String> nextLevel = new ArrayDeque<>();
      for (String task : level) {
        for (String upstream : next.getOrDefault(task, List.of())) {
          if (seen.add(upstream)) {
            reachedFrom.put(upstream, task);
            nextLevel.add(upstream);
          }
        }
      }
      level = nextLevel;
    }
    return Optional.empty();
  }

  private static List<String> path(String taskId, Map<String, String> reachedFrom) {
    Deque<String> path = new ArrayDeque<>();
    path.addFirst(taskId);
    String at = reachedFrom.get(taskId);
    while (at != null && !at.equals(taskId)) {
      path.addFirst(at);
      at = reachedFrom.get(at);
    }
    path.addFirst(taskId);
    return List.copyOf(path);
  }
}
