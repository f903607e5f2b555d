package dev.ax.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.ax.common.store.Database;
import dev.ax.embedded.DatabaseCoordinates;
import dev.ax.embedded.SharedInfrastructure;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A copy of the {@link SchemaTemplate} is what Flyway makes of an empty database: the same tables
 * as {@code SHOW CREATE TABLE} prints them, the same rows, and nothing the copy leaves out.
 */
@ExtendWith(AxInfraExtension.class)
class SchemaTemplateIT {

  /** Rows Flyway writes differently on every run: when and how long each migration ran. */
  private static final List<String> RUN_COLUMNS = List.of("installed_on", "execution_time");

  @Test
  void aCopyIsWhatTheMigrationsMake(AxTestEnv env) throws Exception {
    DatabaseCoordinates second =
        SharedInfrastructure.get().createDatabase(env.topicPrefix().replace('-', '_') + "migrated");
    try (HikariDataSource copy = open(env.database());
        HikariDataSource migrated = open(second)) {
      SchemaTemplate.copyInto(copy);
      Database.migrate(migrated);

      assertThat(Database.migrate(copy).applied()).isZero();
      assertThat(snapshot(copy)).isEqualTo(snapshot(migrated)).isNotEmpty();
      assertThat(objectsACopyLeavesOut(migrated))
          .as("views, triggers, routines, events or foreign keys: SchemaTemplate must copy them")
          .isZero();
    }
  }

  @Test
  void aDatabaseWithTablesIsRefused(AxTestEnv env) {
    try (HikariDataSource target = open(env.database())) {
      SchemaTemplate.copyInto(target);

      assertThatThrownBy(() -> SchemaTemplate.copyInto(target))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("is not empty");
    }
  }

  private static HikariDataSource open(DatabaseCoordinates db) {
    return Database.open(db.jdbcUrl(), db.user(), db.password(), 2, "schema-template-it");
  }

  /** Each table's definition (without its AUTO_INCREMENT counter) and its rows, by table name. */
  private static Map<String, List<String>> snapshot(HikariDataSource dataSource)
      throws SQLException {
    Map<String, List<String>> tables = new LinkedHashMap<>();
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String table : SchemaTemplate.tables(connection, connection.getCatalog())) {
        List<String> lines = new ArrayList<>();
        try (ResultSet create = statement.executeQuery("SHOW CREATE TABLE `" + table + "`")) {
          create.next();
          lines.add(create.getString(2).replaceAll(" AUTO_INCREMENT=\\d+", ""));
        }
        try (ResultSet rows = statement.executeQuery("SELECT * FROM `" + table + "`")) {
          ResultSetMetaData meta = rows.getMetaData();
          while (rows.next()) {
            StringBuilder row = new StringBuilder();
            for (int column = 1; column <= meta.getColumnCount(); column++) {
              if (!RUN_COLUMNS.contains(meta.getColumnLabel(column).toLowerCase())) {
                row.append(meta.getColumnLabel(column)).append('=').append(rows.getString(column));
                row.append(' ');
              }
            }
            lines.add(row.toString());
          }
        }
        tables.put(table, lines);
      }
    }
    return tables;
  }

  private static int objectsACopyLeavesOut(HikariDataSource dataSource) throws SQLException {
    String[] counts = {
      "SELECT COUNT(*) FROM information_schema.views WHERE table_schema = DATABASE()",
      "SELECT COUNT(*) FROM information_schema.triggers WHERE trigger_schema = DATABASE()",
      "SELECT COUNT(*) FROM information_schema.routines WHERE routine_schema = DATABASE()",
      "SELECT COUNT(*) FROM information_schema.events WHERE event_schema = DATABASE()",
      "SELECT COUNT(*) FROM information_schema.referential_constraints"
          + " WHERE constraint_schema = DATABASE()"
    };
    int total = 0;
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String count : counts) {
        try (ResultSet result = statement.executeQuery(count)) {
          result.next();
          total += result.getInt(1);
        }
      }
    }
    return total;
  }
}
