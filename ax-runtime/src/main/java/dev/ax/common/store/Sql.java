package dev.ax.common.store;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;

/**
 * Small helpers for building statements: IN lists, and text cut to fit its column; public for the
 * role stores the stages own.
 */
public final class Sql {

  /** Ids per IN list; larger sets are split. */
  public static final int MAX_IN_LIST = 500;

  private Sql() {}

  /**
   * {@code 'A', 'B', ...}: the names of {@code values} as SQL string literals, for a statement
   * built once from an enum (a state or status written as a bare literal would escape its enum's
   * table).
   */
  @SafeVarargs
  public static <E extends Enum<E>> String literals(E... values) {
    StringBuilder sb = new StringBuilder();
    for (E value : values) {
      sb.append(sb.length() == 0 ? "'" : ", '").append(value.name()).append('\'');
    }
    return sb.toString();
  }

  /** {@code ?,?,...}: {@code count} parameters, for an IN list. */
  public static String placeholders(int count) {
    StringBuilder sb = new StringBuilder(count * 2);
    for (int i = 0; i < count; i++) {
      sb.append(i == 0 ? "?" : ",?");
    }
    return sb.toString();
  }

  /** Binds {@code values} from parameter {@code firstIndex} on; returns the next free index. */
  static int bindAll(PreparedStatement statement, int firstIndex, Collection<String> values)
      throws SQLException {
    int index = firstIndex;
    for (String value : values) {
      statement.setString(index++, value);
    }
    return index;
  }

  /** {@code values} in order, split into lists of at most {@link #MAX_IN_LIST}. */
  public static <T> List<List<T>> chunks(Collection<T> values) {
    List<List<T>> chunks = new ArrayList<>();
    List<T> current = new ArrayList<>();
    for (T value : values) {
      current.add(value);
      if (current.size() == MAX_IN_LIST) {
        chunks.add(current);
        current = new ArrayList<>();
      }
    }
    if (!current.isEmpty()) {
      chunks.add(current);
    }
    return chunks;
  }

  /**
   * Inserts one row into {@code table} for each of {@code items}, its values in {@code columns}'
   * order given by {@code row}, as {@link #insertRows(java.sql.Connection, String, List, List)}.
   */
  static <T> void insertRows(
      java.sql.Connection connection,
      String table,
      List<String> columns,
      List<T> items,
      Function<T, Object[]> row)
      throws SQLException {
    List<Object[]> rows = new ArrayList<>(items.size());
    for (T item : items) {
      rows.add(row.apply(item));
    }
    insertRows(connection, table, columns, rows);
  }

  /**
   * Inserts {@code rows} into {@code table} with multi-row INSERT statements of at most {@link
   * #MAX_IN_LIST} rows each: one round trip per chunk instead of one per row.
   */
  static void insertRows(
      java.sql.Connection connection, String table, List<String> columns, List<Object[]> rows)
      throws SQLException {
    String head = "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES ";
    String row = "(" + placeholders(columns.size()) + ")";
    for (List<Object[]> chunk : chunks(rows)) {
      StringBuilder sql = new StringBuilder(head.length() + chunk.size() * (row.length() + 1));
      sql.append(head);
      for (int i = 0; i < chunk.size(); i++) {
        sql.append(i == 0 ? "" : ",").append(row);
      }
      try (PreparedStatement insert = connection.prepareStatement(sql.toString())) {
        int index = 1;
        for (Object[] values : chunk) {
          for (Object value : values) {
            insert.setObject(index++, value);
          }
        }
        insert.executeUpdate();
      }
    }
  }

  /**
   * The values among {@code keys} that exist in {@code table.column}, in one query per chunk. The
   * table and column are constants of the caller, never user input.
   */
  static java.util.Set<String> existing(
      java.sql.Connection connection, String table, String column, Collection<String> keys)
      throws SQLException {
    java.util.Set<String> existing = new java.util.HashSet<>();
    for (List<String> chunk : chunks(new java.util.LinkedHashSet<>(keys))) {
      try (PreparedStatement select =
          connection.prepareStatement(
              "SELECT "
                  + column
                  + " FROM "
                  + table
                  + " WHERE "
                  + column
                  + " IN ("
                  + placeholders(chunk.size())
                  + ")")) {
        bindAll(select, 1, chunk);
        try (java.sql.ResultSet rs = select.executeQuery()) {
          while (rs.next()) {
            existing.add(rs.getString(1));
          }
        }
      }
    }
    return existing;
  }

  /** {@code text} cut to at most {@code maxLength} characters, ending in "…" when cut. */
  public static String truncate(String text, int maxLength) {
    if (text == null || text.length() <= maxLength) {
      return text;
    }
    return text.substring(0, maxLength - 1) + "…";
  }
}
