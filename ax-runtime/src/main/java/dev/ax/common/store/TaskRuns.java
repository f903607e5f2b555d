package dev.ax.common.store;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.InstanceStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Reads a task's runs (attempts), newest first, with their stored output: the task's newest
 * instances by {@code ax_instance_task} (task_id, due_at_ms), their audit rows by {@code
 * ax_instance_log_instance} (instance_id, id) and their output by {@code ax_run_output}'s primary
 * key (instance_id, attempt). Each read is an index range bounded by the limit: no scan of a table,
 * however long the task's history.
 *
 * <p>Reads only; stateless over a pool, thread-safe.
 */
public final class TaskRuns {

  /** The most runs one read returns. */
  public static final int MAX_LIMIT = 500;

  private final Jdbc jdbc;

  public TaskRuns(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * The latest {@code limit} runs of task {@code taskId} (a stored id), newest first: those of its
   * {@code limit} newest instances (by due time), each instance's latest attempt first.
   */
  public List<TaskRun> latest(String taskId, int limit) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException("limit must be 1.." + MAX_LIMIT + ": " + limit);
    }
    List<String> instanceIds =
        jdbc.query(
            "reading the newest instances of " + taskId,
            "SELECT instance_id FROM ax_instance WHERE task_id = ?"
                + " ORDER BY due_at_ms DESC LIMIT ?",
            values(taskId, limit),
            rs -> rs.getString(1));
    List<TaskRun> runs = runsOf(instanceIds);
    return runs.size() <= limit ? runs : runs.subList(0, limit);
  }

  /** Attempt {@code attempt} of instance {@code instanceId} of task {@code taskId}, if it ran. */
  public Optional<TaskRun> run(String taskId, String instanceId, int attempt) {
    boolean ofTask =
        !jdbc.query(
                "reading the task of " + instanceId,
                "SELECT task_id FROM ax_instance WHERE instance_id = ? AND task_id = ?",
                values(instanceId, taskId),
                rs -> rs.getString(1))
            .isEmpty();
    if (!ofTask) {
      return Optional.empty();
    }
    return runsOf(List.of(instanceId)).stream().filter(r -> r.attempt() == attempt).findFirst();
  }

  /** The runs of {@code instanceIds}, in their order, each one's latest attempt first. */
  private List<TaskRun> runsOf(List<String> instanceIds) {
    if (instanceIds.isEmpty()) {
      return List.of();
    }
    List<Move> moves =
        jdbc.queryIn(
            "reading the runs of " + instanceIds.size() + " instance(s)",
            instanceIds,
            in ->
                "SELECT instance_id, attempt, from_status, to_status, reason, at_ms"
                    + " FROM ax_instance_log WHERE instance_id IN ("
                    + in
                    + ") ORDER BY instance_id, id",
            List.of(),
            rs ->
                new Move(
                    rs.getString(1),
                    rs.getInt(2),
                    rs.getString(3),
                    rs.getString(4),
                    rs.getString(5),
                    rs.getLong(6)));
    Map<String, Stored> outputs = new HashMap<>();
    jdbc.queryIn(
            "reading the output of " + instanceIds.size() + " instance(s)",
            instanceIds,
            in ->
                "SELECT instance_id, attempt, started_at_ms, finished_at_ms, output"
                    + " FROM ax_run_output WHERE instance_id IN ("
                    + in
                    + ")",
            List.of(),
            rs ->
                Map.entry(
                    rs.getString(1) + '#' + rs.getInt(2),
                    new Stored(rs.getLong(3), rs.getLong(4), rs.getString(5))))
        .forEach(e -> outputs.put(e.getKey(), e.getValue()));
    Map<String, Map<Integer, Builder>> byInstance = new LinkedHashMap<>();
    instanceIds.forEach(id -> byInstance.put(id, new LinkedHashMap<>()));
    for (Move move : moves) {
      Map<Integer, Builder> attempts = byInstance.get(move.instanceId());
      String running = InstanceStatus.RUNNING.name();
      if (attempts == null || move.attempt() < 1) {
        continue;
      }
      if (running.equals(move.to())) {
        attempts.computeIfAbsent(move.attempt(), a -> new Builder()).startedAtMs = move.atMs();
      } else if (running.equals(move.from())) {
        Builder run = attempts.computeIfAbsent(move.attempt(), a -> new Builder());
        run.status = move.to();
        run.finishedAtMs = move.atMs();
        run.error = "completed".equals(move.reason()) ? null : move.reason();
      }
    }
    List<TaskRun> runs = new ArrayList<>();
    byInstance.forEach(
        (instanceId, attempts) -> {
          List<Integer> numbers = new ArrayList<>(attempts.keySet());
          numbers.sort((a, b) -> Integer.compare(b, a));
          for (int attempt : numbers) {
            runs.add(
                attempts
                    .get(attempt)
                    .build(instanceId, attempt, outputs.get(instanceId + '#' + attempt)));
          }
        });
    return runs;
  }

  /** One audit row: a move of one attempt. */
  private record Move(
      String instanceId, int attempt, String from, String to, String reason, long atMs) {}

  /** One {@code ax_run_output} row. */
  private record Stored(long startedAtMs, long finishedAtMs, String output) {}

  /** A run being put together from its audit rows. Confined to the reading thread. */
  private static final class Builder {
    private Long startedAtMs;
    private Long finishedAtMs;
    private String status = InstanceStatus.RUNNING.name();
    private String error;

    TaskRun build(String instanceId, int attempt, Stored stored) {
      Long started = stored != null ? Long.valueOf(stored.startedAtMs()) : startedAtMs;
      Long finished = stored != null ? Long.valueOf(stored.finishedAtMs()) : finishedAtMs;
      Long duration = started != null && finished != null ? finished - started : null;
      return new TaskRun(
          instanceId,
          attempt,
          status,
          started,
          finished,
          duration,
          error,
          stored == null ? null : stored.output());
    }
  }
}
