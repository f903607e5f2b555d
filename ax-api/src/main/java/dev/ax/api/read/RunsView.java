package dev.ax.api.read;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import dev.ax.common.store.TaskRun;
import dev.ax.common.store.TaskRuns;
import dev.ax.common.store.TaskStore;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A task's runs (attempts) with their stored output as JSON, the same for {@code ax task runs
 * --json} and {@code GET /api/v1/tasks/{taskId}/runs}: newest first, each with its instance,
 * attempt, status, start, finish, duration, error and output (masked and bounded when it was
 * stored). Times are epoch milliseconds ({@code ...AtMs}) and ISO-8601 in UTC. Reads only;
 * thread-safe.
 */
public final class RunsView {

  private final TaskStore tasks;
  private final TaskRuns runs;

  public RunsView(DataSource dataSource) {
    this.tasks = new TaskStore(dataSource);
    this.runs = new TaskRuns(dataSource);
  }

  /**
   * The latest {@code limit} runs of {@code taskId} (a stored id), newest first; empty when there
   * is no such task.
   */
  public Optional<ObjectNode> runs(String taskId, int limit) {
    if (tasks.find(taskId).isEmpty()) {
      return Optional.empty();
    }
    List<TaskRun> latest = runs.latest(taskId, limit);
    ObjectNode root = AxJson.MAPPER.createObjectNode();
    root.put("taskId", taskId);
    ArrayNode rows = root.putArray("runs");
    latest.forEach(run -> rows.add(json(run)));
    return Optional.of(root);
  }

  /** Attempt {@code attempt} of instance {@code instanceId} of {@code taskId}, if it ran. */
  public Optional<ObjectNode> run(String taskId, String instanceId, int attempt) {
    return runs.run(taskId, instanceId, attempt).map(RunsView::json);
  }

  /** One run as JSON. */
  public static ObjectNode json(TaskRun run) {
    ObjectNode node = AxJson.MAPPER.createObjectNode();
    node.put("instanceId", run.instanceId())
        .put("attempt", run.attempt())
        .put("status", run.status());
    time(node, "started", run.startedAtMs());
    time(node, "finished", run.finishedAtMs());
    if (run.durationMs() == null) {
      node.putNull("durationMs");
    } else {
      node.put("durationMs", run.durationMs());
    }
    node.put("error", run.error()).put("output", run.output());
    return node;
  }

  private static void time(ObjectNode node, String name, Long atMs) {
    if (atMs == null) {
      node.putNull(name + "AtMs");
      node.putNull(name + "At");
    } else {
      node.put(name + "AtMs", atMs);
      node.put(name + "At", Instant.ofEpochMilli(atMs).toString());
    }
  }
}
