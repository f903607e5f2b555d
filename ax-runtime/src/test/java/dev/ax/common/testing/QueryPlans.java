package dev.ax.common.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Checks that statements are served by an index whatever the history: runs {@code EXPLAIN} on each
 * (on a database seeded with enough rows that the optimizer does not prefer a scan of a tiny table,
 * see {@link SeededHistory}) and fails, printing every plan, on a step that reads a table growing
 * with history as a whole ({@code type} {@code ALL}, or {@code index}: every entry of an index) or
 * sorts its rows ({@code Using filesort}), or reads it by another index than the statement requires
 * ({@link PlannedStatement#readingBy}).
 *
 * <p>A table counts as growing unless it is one of {@link #BOUNDED_TABLES} (rows in flight or one
 * per configuration item), a derived table or subquery result the plan builds ({@code <derived2>}:
 * bounded by its own inner step, which is checked), or an alias the statement declares bounded.
 * Reads the plan's columns by name ({@code select_type}, {@code table}, {@code type}, {@code key},
 * {@code rows}, {@code Extra}), which MariaDB and MySQL 8 both print.
 *
 * <p>Stateless and thread-safe.
 */
public final class QueryPlans {

  /** Tables whose size does not grow with history. */
  public static final Set<String> BOUNDED_TABLES =
      Set.of("ax_outbox", "ax_leader_lease", "ax_switch", "ax_switch_applied");

  private static final Set<String> SCANS = Set.of("ALL", "index");

  /** One step of a plan. */
  public record Step(
      String selectType, String table, String type, String key, String rows, String extra) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "  %-18s table=%-14s type=%-12s key=%-32s rows=%-7s Extra=%s",
          selectType,
          table,
          type,
          key,
          rows,
          extra);
    }
  }

  private QueryPlans() {}

  /** The plan of {@code statement}, one step per row of {@code EXPLAIN}. */
  public static List<Step> explain(DataSource dataSource, PlannedStatement statement)
      throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement explain = connection.prepareStatement("EXPLAIN " + statement.sql())) {
      for (int i = 0; i < statement.params().size(); i++) {
        explain.setObject(i + 1, statement.params().get(i));
      }
      List<Step> steps = new ArrayList<>();
      try (ResultSet rs = explain.executeQuery()) {
        while (rs.next()) {
          steps.add(
              new Step(
                  rs.getString("select_type"),
                  rs.getString("table"),
                  rs.getString("type"),
                  rs.getString("key"),
                  rs.getString("rows"),
                  rs.getString("Extra")));
        }
      }
      return steps;
    }
  }

  /** What is wrong with {@code steps} of {@code statement}: empty when every step is indexed. */
  public static List<String> problems(PlannedStatement statement, List<Step> steps) {
    List<String> problems = new ArrayList<>();
    for (Step step : steps) {
      if (!grows(statement, step.table())) {
        continue;
      }
      if (step.type() != null && SCANS.contains(step.type())) {
        problems.add("reads all of " + step.table() + " (type=" + step.type() + ")");
      }
      if (!statement.keys().isEmpty() && !statement.keys().contains(step.key())) {
        problems.add(
            "reads " + step.table() + " by " + step.key() + ", not by " + statement.keys());
      }
      if (step.extra() != null && step.extra().contains("Using filesort")) {
        problems.add("sorts the rows of " + step.table() + " (Using filesort)");
      }
    }
    return problems;
  }

  /**
   * Explains every statement and throws an {@link AssertionError} listing those with a scan or a
   * sort over a growing table; prints every plan either way, so a passing run shows them too.
   */
  public static void assertIndexed(DataSource dataSource, List<PlannedStatement> statements)
      throws SQLException {
    StringBuilder report = new StringBuilder();
    List<String> failed = new ArrayList<>();
    for (PlannedStatement statement : statements) {
      List<Step> steps = explain(dataSource, statement);
      List<String> problems = problems(statement, steps);
      report.append(problems.isEmpty() ? "OK   " : "FAIL ").append(statement.name()).append('\n');
      steps.forEach(step -> report.append(step).append('\n'));
      problems.forEach(p -> report.append("  -> ").append(p).append('\n'));
      if (!problems.isEmpty()) {
        failed.add(statement.name());
      }
    }
    System.out.println("Query plans:\n" + report);
    if (!failed.isEmpty()) {
      throw new AssertionError(
          "Statements not served by an index whatever the history: " + failed + "\n" + report);
    }
  }

  private static boolean grows(PlannedStatement statement, String table) {
    if (table == null || table.startsWith("<")) {
      return false; // no table (e.g. SELECT ... FROM DUAL) or a derived/subquery/union result
    }
    return !BOUNDED_TABLES.contains(table) && !statement.bounded().contains(table);
  }
}
