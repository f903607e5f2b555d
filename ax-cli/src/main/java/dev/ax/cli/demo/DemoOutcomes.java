package dev.ax.cli.demo;

import dev.ax.common.contract.TaskCompletedEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What came back during {@code ax demo} (completion events and rejections), held against the {@link
 * DemoPlan}: whether everything expected has arrived, and what differs from the plan. Not
 * thread-safe: fed and read by the demo's main thread.
 */
public final class DemoOutcomes {

  /** A message from the rejected topic. */
  public record Rejection(String key, String reason) {}

  private final DemoPlan plan;
  private final Map<String, List<TaskCompletedEvent>> completionsByTask = new LinkedHashMap<>();
  private final List<Rejection> rejections = new ArrayList<>();

  public DemoOutcomes(DemoPlan plan) {
    this.plan = plan;
  }

  public void completed(TaskCompletedEvent event) {
    completionsByTask.computeIfAbsent(event.taskId(), id -> new ArrayList<>()).add(event);
  }

  public void rejected(String key, String reason) {
    rejections.add(new Rejection(key, reason));
  }

  /** True once every planned run has ended and every planned rejection has arrived. */
  public boolean allArrived() {
    boolean runsEnded =
        plan.runs().stream().allMatch(step -> completionsByTask.containsKey(step.key()));
    Set<String> rejectedKeys = rejections.stream().map(Rejection::key).collect(Collectors.toSet());
    boolean rejectionsArrived =
        plan.rejections().stream().allMatch(step -> rejectedKeys.contains(step.key()));
    return runsEnded && rejectionsArrived;
  }

  /** The completion events of {@code taskId}, in arrival order; empty if none. */
  public List<TaskCompletedEvent> completionsOf(String taskId) {
    return completionsByTask.getOrDefault(taskId, List.of());
  }

  public List<Rejection> rejections() {
    return List.copyOf(rejections);
  }

  /** Every way the outcome differs from the plan, one sentence each; empty when none. */
  public List<String> differences() {
    List<String> differences = new ArrayList<>();
    Set<String> planned = plan.runs().stream().map(DemoPlan.Step::key).collect(Collectors.toSet());
    for (DemoPlan.Step step : plan.runs()) {
      List<TaskCompletedEvent> events = completionsOf(step.key());
      if (events.isEmpty()) {
        differences.add(
            step.key() + " never completed (expected " + step.expected().status() + ")");
        continue;
      }
      TaskCompletedEvent first = events.get(0);
      if (first.status() != step.expected().status()) {
        differences.add(
            step.key()
                + " ended "
                + first.status()
                + ", expected "
                + step.expected().status()
                + (first.error() == null ? "" : " (" + first.error() + ")"));
      }
      if (events.size() > 1) {
        differences.add(
            step.key() + " completed " + events.size() + " times, expected once (duplicate run)");
      }
    }
    completionsByTask.forEach(
        (taskId, events) -> {
          if (!planned.contains(taskId)) {
            differences.add(
                taskId + " completed " + events.size() + " time(s) but was not planned");
          }
        });
    Map<String, Long> rejectedCount =
        rejections.stream().collect(Collectors.groupingBy(Rejection::key, Collectors.counting()));
    for (DemoPlan.Step step : plan.rejections()) {
      long count = rejectedCount.getOrDefault(step.key(), 0L);
      if (count == 0) {
        differences.add(step.key() + " was not rejected");
      } else if (count > 1) {
        differences.add(step.key() + " was rejected " + count + " times, expected once");
      }
    }
    Set<String> plannedRejections =
        plan.rejections().stream().map(DemoPlan.Step::key).collect(Collectors.toSet());
    for (Rejection rejection : rejections) {
      if (!plannedRejections.contains(rejection.key())) {
        differences.add(
            rejection.key() + " was rejected but should have been accepted: " + rejection.reason());
      }
    }
    return differences;
  }
}
