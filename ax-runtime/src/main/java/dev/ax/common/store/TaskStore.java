package dev.ax.common.store;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.Namespace;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.TaskState;
import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerGroups;
import dev.ax.common.model.TriggerType;
import dev.ax.common.schedule.Jitter;
import dev.ax.common.trace.TraceIds;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tasks in {@code ax_task}. Creating a task writes the task, its first instance and the instance's
 * first audit row in one transaction. Thread-safe (stateless over a pool).
 */
public final class TaskStore {

  private static final Logger log = LoggerFactory.getLogger(TaskStore.class);
  private static final int MAX_UNREADABLE_WARNED = 10_000;

  /** The states that count against a group's limit ({@link TaskState#isLive}), as SQL literals. */
  private static final String LIVE_STATES =
      Sql.literals(
          Arrays.stream(TaskState.values()).filter(TaskState::isLive).toArray(TaskState[]::new));

  /** Tasks whose unreadable spec was logged at WARN; bounded, shared by every reader. */
  private static final Set<String> unreadableWarned = ConcurrentHashMap.newKeySet();

  private static final List<String> TASK_COLUMNS =
      List.of(
          "task_id",
          "version",
          "task_group",
          "trigger_type",
          "state",
          "spec_json",
          "trace_id",
          "created_at_ms",
          "updated_at_ms",
          "trigger_group");
  private static final String SELECT_TASK =
      "SELECT task_id, version, state, spec_json, trace_id FROM ax_task WHERE task_id IN ";

  private final DataSource dataSource;
  private final Jdbc jdbc;

  public TaskStore(DataSource dataSource) {
    this.dataSource = dataSource;
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * Stores each task that does not exist yet, with its first instance SCHEDULED, in one transaction
   * for the whole list.
   *
   * @return one outcome per task, in order, and the keys of the instances created
   */
  public CreateResult create(List<NewTask> tasks, String actor, long nowMs) {
    if (tasks.isEmpty()) {
      return new CreateResult(List.of(), Map.of());
    }
    return Transactions.inTransaction(
        dataSource,
        "creating " + tasks.size() + " task(s)",
        connection -> {
          Set<String> taken = existingTaskIds(connection, tasks);
          List<CreateOutcome> outcomes = new ArrayList<>(tasks.size());
          List<NewTask> created = new ArrayList<>();
          List<Object[]> rows = new ArrayList<>();
          for (NewTask task : tasks) {
            if (!taken.add(task.spec().taskId())) {
              outcomes.add(CreateOutcome.DUPLICATE);
              continue;
            }
            outcomes.add(CreateOutcome.CREATED);
            created.add(task);
            rows.add(
                new Object[] {
                  task.spec().taskId(),
                  1,
                  task.spec().group(),
                  task.spec().trigger().type().name(),
                  TaskState.ACTIVE.name(),
                  AxJson.writeString(TaskSpecJson.write(task.spec())),
                  task.traceId(),
                  nowMs,
                  nowMs,
                  TriggerGroups.keyOf(task.spec().trigger())
                });
          }
          // A concurrent ingest inserting the same taskId makes this fail with a duplicate key:
          // the batch rolls back, is read again, and then counts that task as a duplicate.
          Sql.insertRows(connection, "ax_task", TASK_COLUMNS, rows);
          insertDependencies(connection, created);
          return new CreateResult(
              outcomes,
              insertFirstInstances(
                  connection,
                  created.stream().filter(NewTask::hasFirstInstance).toList(),
                  actor,
                  nowMs));
        });
  }

  /** The dependency graph's edges of the DEPENDENCY tasks just created. */
  private static void insertDependencies(Connection connection, List<NewTask> created)
      throws SQLException {
    List<Object[]> edges = new ArrayList<>();
    for (NewTask task : created) {
      if (task.spec().trigger() instanceof Trigger.Dependency dependency) {
        for (String upstream : dependency.upstreamTaskIds()) {
          edges.add(new Object[] {task.spec().taskId(), upstream});
        }
      }
    }
    Sql.insertRows(connection, "ax_task_dependency", List.of("task_id", "upstream_task_id"), edges);
  }

  /** A dependency task and every upstream it waits for. */
  public record Downstream(String taskId, List<String> upstreams) {}

  /**
   * The DEPENDENCY tasks that wait for each of {@code upstreamTaskIds}, each with all its
   * upstreams, by upstream task id (an upstream nobody waits for maps to an empty list).
   */
  public Map<String, List<Downstream>> dependentsOf(Collection<String> upstreamTaskIds) {
    Map<String, List<Downstream>> byUpstream = new HashMap<>();
    upstreamTaskIds.forEach(id -> byUpstream.put(id, new ArrayList<>()));
    if (upstreamTaskIds.isEmpty()) {
      return byUpstream;
    }
    Map<String, List<String>> downstreams = edges("upstream_task_id", upstreamTaskIds, true);
    Set<String> waiting = new HashSet<>();
    downstreams.values().forEach(waiting::addAll);
    Map<String, List<String>> upstreamsOf = upstreamsOf(waiting);
    downstreams.forEach(
        (upstream, tasks) -> {
          for (String task : tasks) {
            byUpstream
                .get(upstream)
                .add(new Downstream(task, upstreamsOf.getOrDefault(task, List.of())));
          }
        });
    return byUpstream;
  }

  /**
   * Up to {@code limit} upstream task ids of the graph after {@code after} (null: from the start),
   * in order.
   */
  public List<String> upstreamsAfter(String after, int limit) {
    return jdbc.query(
        "paging the dependency graph",
        "SELECT DISTINCT upstream_task_id FROM ax_task_dependency"
            + " WHERE upstream_task_id > ? ORDER BY upstream_task_id LIMIT ?",
        values(after == null ? "" : after, limit),
        rs -> rs.getString(1));
  }

  /** The upstreams of each of {@code taskIds} that has any, by task id. */
  public Map<String, List<String>> upstreamsOf(Collection<String> taskIds) {
    return edges("task_id", taskIds, false);
  }

  /**
   * The number of <em>live</em> tasks of each of {@code groups} that has any (absent: none), in one
   * query per chunk of groups: the tasks in state ACTIVE or PAUSED. A ONCE task leaves them when
   * its last instance ends ({@link OneShotEnd}: ENDED), any task when it is cancelled or deleted; a
   * periodic or DEPENDENCY task stays live until then. Read as a range of the index {@code
   * ax_task_group_active (task_group, state, trigger_type)}: the cost follows the live tasks, not
   * the group's history.
   */
  public Map<String, Long> countActiveByGroup(Collection<String> groups) {
    Map<String, Long> counts = new HashMap<>();
    jdbc.queryIn(
            "counting live tasks of " + groups.size() + " group(s)",
            groups,
            TaskStore::liveCountSql,
            List.of(),
            rs -> Map.entry(rs.getString(1), rs.getLong(2)))
        .forEach(row -> counts.put(row.getKey(), row.getValue()));
    return counts;
  }

  /**
   * The live count of {@link #countActiveByGroup} for the groups bound to {@code placeholders}
   * ({@code ?, ?, ...}); public for the EXPLAIN test.
   */
  public static String liveCountSql(String placeholders) {
    return "SELECT task_group, COUNT(*) FROM ax_task WHERE task_group IN ("
        + placeholders
        + ") AND state IN ("
        + LIVE_STATES
        + ") GROUP BY task_group";
  }

  /**
   * The live tasks of each of {@code namespaces} (names of namespaces other than the default one),
   * as {@link #countActiveByGroup} counts them: one index range per namespace over its groups
   * ({@code <namespace>~...}).
   */
  public Map<String, Long> countActiveByNamespace(Collection<String> namespaces) {
    Map<String, Long> counts = new HashMap<>();
    for (String namespace : namespaces) {
      counts.put(
          namespace,
          jdbc.queryLong(
              "counting live tasks of namespace " + namespace,
              NAMESPACE_LIVE_COUNT,
              values(namespace + Namespace.SEPARATOR + "%")));
    }
    return counts;
  }

  /** The live count of one namespace, its groups' prefix bound; public for the EXPLAIN test. */
  public static final String NAMESPACE_LIVE_COUNT =
      "SELECT COUNT(*) FROM ax_task WHERE task_group LIKE ? AND state IN (" + LIVE_STATES + ")";

  /** The task ids among {@code taskIds} that exist. */
  public Set<String> existing(Collection<String> taskIds) {
    if (taskIds.isEmpty()) {
      return Set.of();
    }
    return Transactions.read(
        dataSource,
        "checking " + taskIds.size() + " task id(s)",
        connection -> Sql.existing(connection, "ax_task", "task_id", List.copyOf(taskIds)));
  }

  /**
   * Edges keyed by {@code keyColumn}: with {@code byUpstream}, upstream → the tasks waiting for it;
   * without, task → its upstreams.
   */
  private Map<String, List<String>> edges(
      String keyColumn, Collection<String> keys, boolean byUpstream) {
    Map<String, List<String>> edges = new HashMap<>();
    for (Map.Entry<String, String> edge :
        jdbc.queryIn(
            "reading dependencies of " + keys.size() + " task(s)",
            keys,
            in ->
                "SELECT task_id, upstream_task_id FROM ax_task_dependency WHERE "
                    + keyColumn
                    + " IN ("
                    + in
                    + ") ORDER BY task_id, upstream_task_id",
            List.of(),
            rs -> Map.entry(rs.getString(1), rs.getString(2)))) {
      String task = edge.getKey();
      String upstream = edge.getValue();
      edges
          .computeIfAbsent(byUpstream ? upstream : task, k -> new ArrayList<>())
          .add(byUpstream ? task : upstream);
    }
    return edges;
  }

  private static Set<String> existingTaskIds(Connection connection, List<NewTask> tasks)
      throws SQLException {
    return Sql.existing(
        connection, "ax_task", "task_id", tasks.stream().map(t -> t.spec().taskId()).toList());
  }

  private static Map<String, Long> insertFirstInstances(
      Connection connection, List<NewTask> created, String actor, long nowMs) throws SQLException {
    List<NewInstance> instances = new ArrayList<>(created.size());
    for (NewTask task : created) {
      String taskId = task.spec().taskId();
      String instanceId = InstanceIds.of(taskId, task.firstDueAtMs());
      instances.add(
          new NewInstance(
              instanceId,
              taskId,
              1,
              Jitter.dueAtMs(task.spec(), task.firstDueAtMs()),
              TraceIds.ofInstance(task.spec().trigger(), task.traceId(), instanceId),
              "created",
              null,
              task.spec().trigger() instanceof Trigger.Once));
    }
    return InstanceInserts.insert(connection, instances, actor, nowMs, false);
  }

  public Optional<StoredTask> find(String taskId) {
    return Optional.ofNullable(findAll(List.of(taskId)).get(taskId));
  }

  /** The stored tasks among {@code taskIds}, by id; missing ids are absent from the map. */
  public Map<String, StoredTask> findAll(Collection<String> taskIds) {
    return findAll(taskIds, null);
  }

  /**
   * The tasks among {@code taskIds} whose trigger is of {@code triggerType} (the others are not
   * read, so a caller interested in one kind does not parse every spec), by task id.
   */
  public Map<String, StoredTask> findAllOfType(
      Collection<String> taskIds, TriggerType triggerType) {
    return findAll(taskIds, triggerType);
  }

  private Map<String, StoredTask> findAll(Collection<String> taskIds, TriggerType triggerType) {
    Map<String, StoredTask> found = new HashMap<>();
    for (Map.Entry<String, StoredTask> task :
        jdbc.queryIn(
            "reading " + taskIds.size() + " task(s)",
            taskIds,
            in ->
                SELECT_TASK + "(" + in + ")" + (triggerType == null ? "" : " AND trigger_type = ?"),
            triggerType == null ? List.of() : List.of(triggerType.name()),
            this::readableTask)) {
      if (task != null) { // null: as if missing, its instances fire and fail "not found"
        found.put(task.getKey(), task.getValue());
      }
    }
    return found;
  }

  /**
   * Version {@code version} of task {@code taskId}'s spec as an UPDATE superseded it (table {@code
   * ax_task_version}), with the task's current state and trace id; empty when the task is gone or
   * has no such superseded version (the current version is {@link #findAll}'s).
   */
  public Optional<StoredTask> findSuperseded(String taskId, int version) {
    return jdbc.queryFirst(
            "reading version " + version + " of task " + taskId,
            "SELECT v.spec_json, t.state, t.trace_id FROM ax_task_version v"
                + " JOIN ax_task t ON t.task_id = v.task_id"
                + " WHERE v.task_id = ? AND v.version = ?",
            Jdbc.Binder.values(taskId, version),
            rs -> {
              TaskSpec spec = readableSpec(taskId, rs.getString(1));
              return spec == null
                  ? Optional.<StoredTask>empty()
                  : Optional.of(
                      new StoredTask(
                          spec, version, TaskState.valueOf(rs.getString(2)), rs.getString(3)));
            })
        .flatMap(found -> found);
  }

  /** The task of a row of {@link #SELECT_TASK} by its id, or null when its spec cannot be read. */
  private Map.Entry<String, StoredTask> readableTask(ResultSet rs) throws SQLException {
    String taskId = rs.getString("task_id");
    TaskSpec spec = readableSpec(taskId, rs.getString("spec_json"));
    if (spec == null) {
      return null;
    }
    return Map.entry(
        taskId,
        new StoredTask(
            spec,
            rs.getInt("version"),
            TaskState.valueOf(rs.getString("state")),
            rs.getString("trace_id")));
  }

  /**
   * The stored spec, or null when it cannot be read any more (a zone gone from the JDK's tzdata, a
   * hand-edited row): one such row must not fail the batch it is read with, for every stage that
   * reads it. Said at WARN once per task (up to {@link #MAX_UNREADABLE_WARNED} tasks per process).
   */
  private TaskSpec readableSpec(String taskId, String json) {
    try {
      return TaskSpecJson.readStored(taskId, json);
    } catch (IllegalStateException e) {
      if (unreadableWarned.size() < MAX_UNREADABLE_WARNED && unreadableWarned.add(taskId)) {
        log.warn("{}; its instances fail as 'not found'", e.getMessage());
      } else {
        log.debug("{}", e.getMessage());
      }
      return null;
    }
  }
}
