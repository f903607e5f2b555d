package dev.ax.common.store;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.InstanceStatus;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * What every stage shares of {@code ax_instance}: creating instances (idempotent on instance id,
 * with their audit rows; ingest, the ticker's chainer and reaper, and the resolver's triggers all
 * create) and reading them (one instance, a task's, a flow run's, the count per status, for the
 * stages, the CLI and the tests). Every status change lives in the role store of the stage that
 * makes it: the ticker's {@code FiringStore} and {@code ReaperStore}, the dispatcher's {@code
 * ClaimStore} and {@code OutcomeStore}, the retry stage's {@code RetryStore}, the dead-letter
 * stage's {@code DeadLetterStore}.
 *
 * <p>Thread-safe (stateless over a pool).
 */
public final class InstanceStore {

  private static final String COLUMNS =
      "instance_id, task_id, status, attempt, due_at_ms, owner, claimed_at_ms, finished_at_ms,"
          + " last_error, trace_id";

  private final DataSource dataSource;
  private final Jdbc jdbc;

  public InstanceStore(DataSource dataSource) {
    this.dataSource = dataSource;
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * Creates SCHEDULED instances that do not exist yet (idempotent on instance id), e.g. the next
   * firing of a fixed-delay task after its run ended.
   *
   * @return the numeric key of each instance created, by instance id
   */
  public Map<String, Long> create(List<NewInstance> instances, String actor, long nowMs) {
    if (instances.isEmpty()) {
      return Map.of();
    }
    return Transactions.inTransaction(
        dataSource,
        "creating " + instances.size() + " instance(s)",
        connection -> InstanceInserts.insert(connection, instances, actor, nowMs));
  }

  public Optional<InstanceRow> find(String instanceId) {
    return jdbc.queryFirst(
        "reading instance " + instanceId,
        "SELECT " + COLUMNS + " FROM ax_instance WHERE instance_id = ?",
        values(instanceId),
        InstanceStore::toRow);
  }

  /**
   * Every instance of one flow run (the instance that started it, whose id is the flow run id, and
   * every instance that joined it), oldest created first.
   */
  public List<InstanceRow> findByFlowRun(String flowRunId) {
    return select(
        "reading flow run " + flowRunId,
        "instance_id = ? OR flow_run_id = ? ORDER BY created_at_ms, seq",
        flowRunId,
        flowRunId);
  }

  /** Every instance of one task, oldest due first. */
  public List<InstanceRow> findByTask(String taskId) {
    return select("reading instances of " + taskId, "task_id = ? ORDER BY due_at_ms", taskId);
  }

  /** The newest {@code limit} instances of {@code taskId}, latest due first. */
  public List<InstanceRow> latestOfTask(String taskId, int limit) {
    return select(
        "reading the latest instances of " + taskId,
        "task_id = ? ORDER BY due_at_ms DESC LIMIT ?",
        taskId,
        limit);
  }

  /** The instances {@code SELECT COLUMNS FROM ax_instance WHERE <condition>} reads. */
  private List<InstanceRow> select(String what, String condition, Object... bound) {
    return jdbc.query(
        what,
        "SELECT " + COLUMNS + " FROM ax_instance WHERE " + condition,
        values(bound),
        InstanceStore::toRow);
  }

  public Map<InstanceStatus, Long> countByStatus() {
    Map<InstanceStatus, Long> counts = new EnumMap<>(InstanceStatus.class);
    jdbc.query(
            "counting instances",
            "SELECT status, COUNT(*) FROM ax_instance GROUP BY status",
            values(),
            rs -> Map.entry(InstanceStatus.valueOf(rs.getString(1)), rs.getLong(2)))
        .forEach(entry -> counts.put(entry.getKey(), entry.getValue()));
    return counts;
  }

  private static InstanceRow toRow(ResultSet rs) throws SQLException {
    return new InstanceRow(
        rs.getString("instance_id"),
        rs.getString("task_id"),
        InstanceStatus.valueOf(rs.getString("status")),
        rs.getInt("attempt"),
        rs.getLong("due_at_ms"),
        rs.getString("owner"),
        (Long) rs.getObject("claimed_at_ms", Long.class),
        (Long) rs.getObject("finished_at_ms", Long.class),
        rs.getString("last_error"),
        rs.getString("trace_id"));
  }
}
