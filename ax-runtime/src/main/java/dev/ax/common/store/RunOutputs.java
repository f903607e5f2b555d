package dev.ax.common.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Writes {@code ax_run_output}: the output of the attempts an outcome transaction recorded, in that
 * transaction. Outcomes without output write nothing, so a batch of such attempts (the benchmarks'
 * noop and sleep runs) costs no statement at all.
 *
 * <p>Stateless; thread-safe. The connection is the caller's, its transaction begun.
 */
public final class RunOutputs {

  private static final List<String> COLUMNS =
      List.of(
          "instance_id",
          "attempt",
          "task_id",
          "status",
          "started_at_ms",
          "finished_at_ms",
          "output");

  private RunOutputs() {}

  /**
   * Inserts the output of each of {@code recorded} that has one, in multi-row INSERTs.
   *
   * @param recorded outcomes this transaction recorded (won): a lost one must not be passed
   * @return how many rows were written
   */
  public static int insert(Connection connection, List<Outcome> recorded) throws SQLException {
    List<Object[]> rows = new ArrayList<>();
    Set<String> runs = new HashSet<>();
    for (Outcome outcome : recorded) {
      RunOutput output = outcome.output();
      // Each run once: a run is recorded once, but a batch given the same outcome twice must not
      // fail on the key.
      if (output != null && runs.add(OutcomeRecording.runOf(outcome))) {
        rows.add(
            new Object[] {
              outcome.instanceId(),
              outcome.attempt(),
              outcome.taskId(),
              outcome.status().name(),
              output.startedAtMs(),
              outcome.finishedAtMs(),
              output.text()
            });
      }
    }
    if (!rows.isEmpty()) {
      Sql.insertRows(connection, "ax_run_output", COLUMNS, rows);
    }
    return rows.size();
  }
}
