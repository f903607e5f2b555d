package dev.ax.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;

/**
 * What the database server did, from its global status counters: prepared statements run and
 * commits, rows written, updated and deleted, index lookups and index entries read on from them,
 * rows read by table scans, InnoDB's logical page reads and those of them that went to disk. A
 * reading is a snapshot; {@link #since} is the work between two, which {@link #perUnit} divides by
 * the firings (or tasks) it served. The counters are the whole server's: the bench's own reads are
 * in them, and are small beside the stages'. Immutable.
 */
final class DatabaseWork {

  /** The counters read, in the order they print. */
  static final List<String> COUNTERS =
      List.of(
          "Com_stmt_execute",
          "Com_commit",
          "Handler_write",
          "Handler_update",
          "Handler_delete",
          "Handler_read_key",
          "Handler_read_next",
          "Handler_read_rnd_next",
          "Innodb_buffer_pool_read_requests",
          "Innodb_buffer_pool_reads");

  private final Map<String, Long> values;

  private DatabaseWork(Map<String, Long> values) {
    this.values = values;
  }

  /** The counters now; all zero (and a line saying so on stderr) if they cannot be read. */
  static DatabaseWork read(DataSource dataSource) {
    Map<String, Long> values = new LinkedHashMap<>();
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SHOW GLOBAL STATUS")) {
      while (rs.next()) {
        String name = rs.getString(1);
        if (COUNTERS.stream().anyMatch(name::equalsIgnoreCase)) {
          values.put(canonical(name), parse(rs.getString(2)));
        }
      }
    } catch (SQLException e) {
      System.err.println("database status counters not read: " + e.getMessage());
    }
    return new DatabaseWork(values);
  }

  static DatabaseWork none() {
    return new DatabaseWork(Map.of());
  }

  /** A reading of the given counters (the others zero). */
  static DatabaseWork of(Map<String, Long> values) {
    return new DatabaseWork(Map.copyOf(values));
  }

  /** The work from {@code earlier} to this reading. */
  DatabaseWork since(DatabaseWork earlier) {
    Map<String, Long> delta = new LinkedHashMap<>();
    for (String counter : COUNTERS) {
      delta.put(counter, get(counter) - earlier.get(counter));
    }
    return new DatabaseWork(delta);
  }

  long get(String counter) {
    return values.getOrDefault(counter, 0L);
  }

  /** One line: each counter divided by {@code units}, e.g. {@code Com_update=3.02}. */
  String perUnit(long units) {
    StringBuilder line = new StringBuilder();
    for (String counter : COUNTERS) {
      line.append(line.isEmpty() ? "" : " ")
          .append(counter)
          .append('=')
          .append(
              units == 0 ? "-" : String.format(Locale.ROOT, "%.2f", get(counter) / (double) units));
    }
    return line.toString();
  }

  private static String canonical(String name) {
    return COUNTERS.stream().filter(name::equalsIgnoreCase).findFirst().orElse(name);
  }

  private static long parse(String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
