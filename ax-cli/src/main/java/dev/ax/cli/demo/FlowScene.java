package dev.ax.cli.demo;

import dev.ax.cli.kafka.TaskCommandJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.InstanceStatus;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A flow with a join: {@code demo-flow-start} (ONCE) fans out to {@code demo-flow-a} and {@code
 * demo-flow-b}, both DEPENDENCY tasks; {@code demo-flow-join} waits for both, and {@code
 * demo-flow-report} follows it. As planned when each ran once and succeeded, all in the start's
 * flow run, and none started before its upstreams ended. Not thread-safe.
 */
public final class FlowScene extends DemoScene {

  static final String START = "demo-flow-start";
  static final String A = "demo-flow-a";
  static final String B = "demo-flow-b";
  static final String JOIN = "demo-flow-join";
  static final String REPORT = "demo-flow-report";

  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  /** Each task and its upstream tasks. */
  private static final Map<String, List<String>> UPSTREAM = upstream();

  /** The tasks created together, each layer once the one before it is known to ingest. */
  private static final List<List<String>> LAYERS =
      List.of(List.of(START), List.of(A, B), List.of(JOIN), List.of(REPORT));

  private final Map<String, DemoPlan.Step> steps = new LinkedHashMap<>();
  private final Map<String, List<TaskCompletedEvent>> runs = new LinkedHashMap<>();
  private int layersSent = 1;

  /**
   * @param http the demo endpoints' base URI ({@code demo-flow-b} calls {@value DemoEndpoints#OK})
   * @param startIn how long after it is sent the flow's first task is due
   */
  public FlowScene(URI http, Duration startIn) {
    steps.put(
        START,
        step(START, "noop", TaskCommandJson.create(START).onceAfter(startIn).inProcess("noop")));
    steps.put(A, step(A, "sleep 300 ms", dependent(A).inProcess("sleep").param("sleepMs", "300")));
    steps.put(
        B,
        step(
            B,
            "HTTP " + DemoEndpoints.OK,
            dependent(B).http(http.resolve(DemoEndpoints.OK), null)));
    steps.put(JOIN, step(JOIN, "noop, joins a and b", dependent(JOIN).inProcess("noop")));
    steps.put(REPORT, step(REPORT, "noop", dependent(REPORT).inProcess("noop")));
    UPSTREAM.keySet().forEach(id -> runs.put(id, new ArrayList<>()));
  }

  private static Map<String, List<String>> upstream() {
    Map<String, List<String>> upstream = new LinkedHashMap<>();
    upstream.put(START, List.of());
    upstream.put(A, List.of(START));
    upstream.put(B, List.of(START));
    upstream.put(JOIN, List.of(A, B));
    upstream.put(REPORT, List.of(JOIN));
    return upstream;
  }

  private static TaskCommandJson dependent(String taskId) {
    return TaskCommandJson.create(taskId).dependsOn(UPSTREAM.get(taskId).toArray(String[]::new));
  }

  private static DemoPlan.Step step(String taskId, String executor, TaskCommandJson json) {
    return new DemoPlan.Step(
        taskId, executor, DemoPlan.Expectation.SUCCESS, json.timeout(TIMEOUT).toBytes());
  }

  @Override
  public String title() {
    return "a flow with a join: start -> (a, b) -> join -> report";
  }

  @Override
  public List<DemoPlan.Step> commands() {
    return List.of(steps.get(START));
  }

  /**
   * Sends the next layer of dependency tasks once ingest knows every task of the last one: a
   * DEPENDENCY task naming an upstream ingest has not stored yet is rejected, and commands keyed by
   * different task ids may be applied in any order.
   */
  @Override
  public void advance(DemoActions actions, long nowMs) throws InterruptedException {
    if (layersSent == LAYERS.size()) {
      return;
    }
    if (!runs.get(START).isEmpty()) {
      abort(START + " ran before its dependent tasks were all created; the flow cannot join");
      return;
    }
    for (String taskId : LAYERS.get(layersSent - 1)) {
      if (actions.taskState(taskId).equals(DemoActions.NO_TASK)) {
        return;
      }
    }
    for (String taskId : LAYERS.get(layersSent)) {
      actions.send(steps.get(taskId), "depends on " + String.join(" and ", UPSTREAM.get(taskId)));
    }
    layersSent++;
  }

  @Override
  public boolean owns(String taskId) {
    return runs.containsKey(taskId);
  }

  @Override
  public void completed(TaskCompletedEvent event) {
    runs.get(event.taskId()).add(event);
  }

  @Override
  protected boolean complete() {
    return !runs.get(REPORT).isEmpty()
        || runs.values().stream()
            .flatMap(List::stream)
            .anyMatch(e -> e.status() != InstanceStatus.SUCCESS);
  }

  /** The flow run every task should be in: the start's instance id; null before it ran. */
  public String flowRunId() {
    List<TaskCompletedEvent> start = runs.get(START);
    if (start.isEmpty()) {
      return null;
    }
    TaskCompletedEvent first = start.get(0);
    return first.flowRunId() != null ? first.flowRunId() : first.instanceId();
  }

  @Override
  protected List<String> check() {
    List<String> differences = new ArrayList<>();
    String flowRunId = flowRunId();
    runs.forEach(
        (taskId, events) -> {
          if (events.isEmpty()) {
            differences.add(taskId + " never ran");
            return;
          }
          if (events.size() > 1) {
            differences.add(taskId + " ran " + events.size() + " times, expected once");
          }
          TaskCompletedEvent run = events.get(0);
          if (run.status() != InstanceStatus.SUCCESS) {
            differences.add(taskId + " ended " + run.status() + ": " + run.error());
          }
          String flow = run.flowRunId() != null ? run.flowRunId() : run.instanceId();
          if (!flow.equals(flowRunId)) {
            differences.add(taskId + " ran in flow run " + flow + ", not " + flowRunId);
          }
          for (String up : UPSTREAM.get(taskId)) {
            List<TaskCompletedEvent> upRuns = runs.get(up);
            if (!upRuns.isEmpty() && run.startedAtMs() < upRuns.get(0).finishedAtMs()) {
              differences.add(taskId + " started before its upstream " + up + " ended");
            }
          }
        });
    return differences;
  }

  @Override
  public String outcome() {
    StringBuilder hops = new StringBuilder();
    for (String taskId : List.of(A, B, JOIN, REPORT)) {
      List<TaskCompletedEvent> own = runs.get(taskId);
      long upstreamEnd =
          UPSTREAM.get(taskId).stream()
              .map(runs::get)
              .filter(list -> !list.isEmpty())
              .mapToLong(list -> list.get(0).finishedAtMs())
              .max()
              .orElse(0);
      if (!own.isEmpty() && upstreamEnd > 0) {
        hops.append(hops.length() == 0 ? "" : ", ")
            .append(taskId.substring("demo-flow-".length()))
            .append(' ')
            .append(own.get(0).startedAtMs() - upstreamEnd)
            .append(" ms");
      }
    }
    return "flow run "
        + flowRunId()
        + ": every task ran once, in order; from upstream end to start: "
        + hops
        + " (./ax flow "
        + flowRunId()
        + ")";
  }
}
