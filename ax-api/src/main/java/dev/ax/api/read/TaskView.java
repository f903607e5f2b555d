package dev.ax.api.read;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.Namespace;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * One task or one instance as JSON, the same for {@code ax task show --json} and {@code GET
 * /api/v1/tasks/{taskId}}: a task with its state, version, masked spec, next firings, latest
 * instances and applied commands; an instance with its audit history. Times are epoch milliseconds
 * ({@code ...AtMs}) and, beside the task's own, ISO-8601 in UTC. Reads only; thread-safe.
 */
public final class TaskView {

  /** How many next firings a task shows. */
  static final int NEXT_FIRINGS = 5;

  private final TaskStore tasks;
  private final InstanceStore instances;
  private final TaskQueries queries;
  private final AuditLog audit;
  private final FireTimes fireTimes = new FireTimes(64);

  public TaskView(DataSource dataSource) {
    this.tasks = new TaskStore(dataSource);
    this.instances = new InstanceStore(dataSource);
    this.queries = new TaskQueries(dataSource);
    this.audit = new AuditLog(dataSource);
  }

  /**
   * The task {@code taskId} with its latest {@code instanceCount} instances, newest first; empty
   * when there is no such task. Parameter and header values are masked unless {@code reveal}.
   */
  public Optional<ObjectNode> task(String taskId, int instanceCount, boolean reveal) {
    Optional<StoredTask> task = tasks.find(taskId);
    if (task.isEmpty()) {
      return Optional.empty();
    }
    List<InstanceRow> latest = instances.latestOfTask(taskId, instanceCount);
    Optional<InstanceRow> next =
        latest.stream()
            .filter(r -> r.status() == InstanceStatus.SCHEDULED)
            .min(Comparator.comparingLong(InstanceRow::dueAtMs));
    ObjectNode root = AxJson.MAPPER.createObjectNode();
    root.put("taskId", taskId)
        .put("state", task.get().state().name())
        .put("version", task.get().version())
        .put("traceId", task.get().traceId());
    ArrayNode firings = AxJson.MAPPER.createArrayNode();
    if (next.isPresent()) {
      root.put("nextFiringAtMs", next.get().dueAtMs());
      root.put("nextFiringAt", Instant.ofEpochMilli(next.get().dueAtMs()).toString());
      nextFirings(task.get().spec().trigger(), next.get().dueAtMs())
          .forEach(at -> firings.add(at.toString()));
    } else {
      root.putNull("nextFiringAtMs");
      root.putNull("nextFiringAt");
    }
    root.set("nextFirings", firings);
    // As the namespace's producers write it, so that it can be sent back as an UPDATE.
    root.put("namespace", Namespace.of(taskId).name());
    root.set("spec", SecretMask.masked(TaskSpecJson.writeAsProduced(task.get().spec()), reveal));
    ArrayNode rows = root.putArray("instances");
    latest.forEach(r -> rows.add(AxJson.MAPPER.valueToTree(r)));
    ArrayNode applied = root.putArray("commands");
    queries.commands(taskId).forEach(c -> applied.add(AxJson.MAPPER.valueToTree(c)));
    return Optional.of(root);
  }

  /**
   * The next {@link #NEXT_FIRINGS} firings from the scheduled one at {@code firstMs}: for CRON and
   * FIXED_RATE the schedule's following slots (a FIXED_RATE grid passes through every slot, so the
   * scheduled one serves as its origin); for FIXED_DELAY and ONCE only the scheduled one, since the
   * next depends on when a run ends, or there is none.
   */
  private List<Instant> nextFirings(Trigger trigger, long firstMs) {
    List<Instant> firings = new ArrayList<>();
    Instant at = Instant.ofEpochMilli(firstMs);
    firings.add(at);
    if (trigger instanceof Trigger.Cron || trigger instanceof Trigger.FixedRate) {
      while (firings.size() < NEXT_FIRINGS) {
        Optional<Instant> following = fireTimes.nextAfter(trigger, firings.get(0), at);
        if (following.isEmpty()) {
          break;
        }
        at = following.get();
        firings.add(at);
      }
    }
    return firings;
  }

  /** The instance {@code instanceId} of {@code taskId} with its audit history, oldest first. */
  public Optional<ObjectNode> instance(String taskId, String instanceId) {
    Optional<InstanceRow> row = instances.find(instanceId).filter(r -> r.taskId().equals(taskId));
    if (row.isEmpty()) {
      return Optional.empty();
    }
    ObjectNode root = AxJson.MAPPER.createObjectNode();
    root.set("instance", AxJson.MAPPER.valueToTree(row.get()));
    ArrayNode moves = root.putArray("history");
    audit.history(instanceId).forEach(t -> moves.add(AxJson.MAPPER.valueToTree(t)));
    return Optional.of(root);
  }
}
