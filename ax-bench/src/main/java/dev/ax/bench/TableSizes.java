package dev.ax.bench;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Rows and bytes of AX's tables ({@code ax_*}) as {@code information_schema.TABLES} states them:
 * row counts are InnoDB's estimates (after {@code ANALYZE TABLE} on the tables that grow), bytes
 * are data and index pages. Immutable once read.
 */
final class TableSizes {

  /** The tables that grow with history: analysed before they are read, so rows are current. */
  static final List<String> GROWING =
      List.of(
          "ax_task",
          "ax_instance",
          "ax_instance_log",
          "ax_dead_letter",
          "ax_outbox",
          "ax_task_command");

  /** One table: estimated rows, data bytes, index bytes. */
  record Size(long rows, long dataBytes, long indexBytes) {
    long bytes() {
      return dataBytes + indexBytes;
    }
  }

  private final Map<String, Size> byTable;

  TableSizes(Map<String, Size> byTable) {
    this.byTable = Collections.unmodifiableMap(new LinkedHashMap<>(byTable));
  }

  /** Reads every {@code ax_*} table of the connection's schema, by name. */
  static TableSizes read(DataSource dataSource) throws SQLException {
    Map<String, Size> sizes = new LinkedHashMap<>();
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      try {
        // MySQL 8 caches these figures for a day by default; MariaDB has no such setting.
        statement.execute("SET SESSION information_schema_stats_expiry = 0");
      } catch (SQLException e) {
        // not MySQL 8: its figures are current
      }
      for (String table : GROWING) {
        try {
          statement.execute("ANALYZE TABLE " + table);
        } catch (SQLException e) {
          // a table this schema version does not have: read what there is
        }
      }
      try (ResultSet rs =
          statement.executeQuery(
              "SELECT TABLE_NAME, TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH"
                  + " FROM information_schema.TABLES"
                  + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'ax\\_%'"
                  + " ORDER BY TABLE_NAME")) {
        while (rs.next()) {
          sizes.put(
              rs.getString(1).toLowerCase(Locale.ROOT),
              new Size(rs.getLong(2), rs.getLong(3), rs.getLong(4)));
        }
      }
    }
    return new TableSizes(sizes);
  }

  Map<String, Size> byTable() {
    return byTable;
  }

  /** A table's size, zero when it was not there. */
  Size of(String table) {
    return byTable.getOrDefault(table, new Size(0, 0, 0));
  }

  long totalBytes() {
    return byTable.values().stream().mapToLong(Size::bytes).sum();
  }

  /**
   * The growing tables (and any other that holds rows) before and after, one line each, and a
   * {@code TABLES} line for scripts: {@code <table>=<rows>/<MB>} after.
   */
  static void printChange(String title, TableSizes before, TableSizes after, PrintWriter out) {
    out.printf(Locale.ROOT, "%s (rows are InnoDB estimates)%n", title);
    out.printf(
        Locale.ROOT,
        "  %-20s %14s %14s %10s %10s%n",
        "table",
        "rows before",
        "rows after",
        "MB before",
        "MB after");
    StringBuilder line = new StringBuilder("TABLES");
    for (String table : after.byTable.keySet()) {
      Size was = before.of(table);
      Size is = after.of(table);
      if (!GROWING.contains(table) && was.rows() == 0 && is.rows() == 0) {
        continue;
      }
      out.printf(
          Locale.ROOT,
          "  %-20s %,14d %,14d %10.1f %10.1f%n",
          table,
          was.rows(),
          is.rows(),
          mb(was.bytes()),
          mb(is.bytes()));
      line.append(String.format(Locale.ROOT, " %s=%d/%.1f", table, is.rows(), mb(is.bytes())));
    }
    out.printf(
        Locale.ROOT,
        "  %-20s %14s %14s %10.1f %10.1f%n",
        "all ax_ tables",
        "",
        "",
        mb(before.totalBytes()),
        mb(after.totalBytes()));
    out.println(line);
    out.flush();
  }

  static double mb(long bytes) {
    return bytes / (1024.0 * 1024.0);
  }
}
