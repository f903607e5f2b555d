package dev.ax.common.testing;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * A statement as a stage runs it, for {@link QueryPlans}: a name for the report, its SQL with
 * {@code ?} placeholders, the values bound to them, the aliases of bounded tables it reads (an
 * alias hides the table's name from {@code EXPLAIN}, so a statement naming {@code ax_leader_lease
 * l} lists {@code "l"} here), and, if it must use one, the indexes it is to read by.
 *
 * <p>Immutable.
 */
public record PlannedStatement(
    String name, String sql, List<Object> params, Set<String> bounded, Set<String> keys) {

  public PlannedStatement {
    params = List.copyOf(params); // no nulls: bind a value the statement really gets
    bounded = Set.copyOf(bounded);
    keys = Set.copyOf(keys);
  }

  /** {@code sql} bound to {@code params}, in order. */
  public static PlannedStatement of(String name, String sql, Object... params) {
    return new PlannedStatement(name, sql, Arrays.asList(params), Set.of(), Set.of());
  }

  /** {@code sql} bound to {@code params}, in order (e.g. an IN list and what follows it). */
  public static PlannedStatement of(String name, String sql, List<?> params) {
    return new PlannedStatement(name, sql, List.copyOf(params), Set.of(), Set.of());
  }

  /** This statement, with {@code aliases} naming tables that do not grow with history. */
  public PlannedStatement withBounded(String... aliases) {
    return new PlannedStatement(name, sql, params, Set.of(aliases), keys);
  }

  /**
   * This statement, required to read its growing tables by one of {@code indexes}: for a read whose
   * every index is a range but only one is bounded by what the statement asks for (per task rather
   * than per status, say).
   */
  public PlannedStatement readingBy(String... indexes) {
    return new PlannedStatement(name, sql, params, bounded, Set.of(indexes));
  }
}
