package dev.ax.api.read;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.TaskStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * One flow run as a graph, the same for {@code ax flow} and {@code GET /api/v1/flows/{flowRunId}}:
 * a node per task, with the run it has in the flow (its latest instance there) or none yet, and the
 * upstreams a waiting dependency task still waits for; an edge per dependency between tasks the
 * flow run reached. Reads only; thread-safe.
 */
public final class FlowView {

  /** A task of the flow run: its instance in it (null while it waits) and what it waits for. */
  public record Node(String taskId, String instanceId, String status, List<String> waitsOn) {}

  /** {@code from} must succeed before {@code to} runs. */
  public record Edge(String from, String to) {}

  /** The flow run: its instances, oldest first, and the graph they and their dependents make. */
  public record FlowRun(
      String flowRunId, List<InstanceRow> instances, List<Node> nodes, List<Edge> edges) {

    /** The nodes still waiting: dependency tasks the flow run reached but did not yet run. */
    public List<Node> waiting() {
      return nodes.stream().filter(n -> n.instanceId() == null).toList();
    }
  }

  private final InstanceStore instances;
  private final TaskStore tasks;

  public FlowView(DataSource dataSource) {
    this.instances = new InstanceStore(dataSource);
    this.tasks = new TaskStore(dataSource);
  }

  /** {@code run} as JSON: its id, nodes, edges and instances. */
  public static ObjectNode json(FlowRun run) {
    ObjectNode body = AxJson.MAPPER.createObjectNode();
    body.put("flowRunId", run.flowRunId());
    body.set("nodes", AxJson.MAPPER.valueToTree(run.nodes()));
    body.set("edges", AxJson.MAPPER.valueToTree(run.edges()));
    body.set("instances", AxJson.MAPPER.valueToTree(run.instances()));
    return body;
  }

  /** The flow run {@code flowRunId}, or empty when no instance belongs to it. */
  public Optional<FlowRun> run(String flowRunId) {
    List<InstanceRow> rows = instances.findByFlowRun(flowRunId);
    if (rows.isEmpty()) {
      return Optional.empty();
    }
    Map<String, InstanceRow> latest = new LinkedHashMap<>();
    Set<String> succeeded = new LinkedHashSet<>();
    for (InstanceRow row : rows) {
      latest.put(row.taskId(), row);
      if (row.status() == InstanceStatus.SUCCESS) {
        succeeded.add(row.taskId());
      }
    }
    Map<String, Node> nodes = new LinkedHashMap<>();
    latest.forEach(
        (taskId, row) ->
            nodes.put(taskId, new Node(taskId, row.instanceId(), row.status().name(), List.of())));
    Set<Edge> edges = new LinkedHashSet<>();
    for (List<TaskStore.Downstream> downstreams : tasks.dependentsOf(latest.keySet()).values()) {
      for (TaskStore.Downstream downstream : downstreams) {
        downstream.upstreams().forEach(u -> edges.add(new Edge(u, downstream.taskId())));
        List<String> missing =
            downstream.upstreams().stream().filter(u -> !succeeded.contains(u)).toList();
        nodes.putIfAbsent(downstream.taskId(), new Node(downstream.taskId(), null, null, missing));
      }
    }
    for (Edge edge : edges) {
      nodes.putIfAbsent(edge.from(), new Node(edge.from(), null, null, List.of()));
    }
    return Optional.of(
        new FlowRun(flowRunId, rows, new ArrayList<>(nodes.values()), new ArrayList<>(edges)));
  }
}
