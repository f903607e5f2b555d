package dev.ax.common.testing;

import com.zaxxer.hikari.HikariDataSource;
import dev.ax.common.store.Database;
import dev.ax.embedded.DatabaseCoordinates;
import dev.ax.embedded.SharedInfrastructure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * AX's schema at {@link Database#SCHEMA_VERSION}, migrated once per JVM by Flyway into a database
 * of its own and copied into each test's empty database.
 *
 * <p>Why: Flyway applying every migration to a fresh database took 0.5-1 s per test, a copy of the
 * migrated tables takes 50-90 ms, and most tests exercise what the schema is, not how it got there.
 * The migrations still run through {@link Database#migrate} once in every JVM that uses this class,
 * and a copied database is at the same version in Flyway's history table, so a stage started on it
 * finds nothing to migrate, as a stage started on a migrated production database does.
 *
 * <p>What is copied: every base table, by its own {@code SHOW CREATE TABLE} (columns, indexes,
 * partitioning, engine and charset as the migrations left them), and every row the migrations
 * inserted (the ticker lease row, Flyway's history). The schema has no views, triggers, routines or
 * foreign keys, which this copy would not carry; {@code SchemaTemplateIT} compares a copy with a
 * migrated database and fails when that changes.
 *
 * <p>Thread-safe: the template is made once under the class lock; copies only read it.
 */
public final class SchemaTemplate {

  private static String templateName;

  private SchemaTemplate() {}

  /**
   * Brings {@code target}, an empty database, to the current schema by copying the template.
   *
   * @throws IllegalStateException if {@code target} already has tables
   */
  public static void copyInto(DataSource target) {
    String template = template();
    try (Connection connection = target.getConnection();
        Statement statement = connection.createStatement()) {
      if (!tables(connection, connection.getCatalog()).isEmpty()) {
        throw new IllegalStateException(
            "database " + connection.getCatalog() + " is not empty: the copy needs an empty one");
      }
      for (String table : tables(connection, template)) {
        try (ResultSet create =
            statement.executeQuery("SHOW CREATE TABLE `" + template + "`.`" + table + "`")) {
          create.next();
          statement.execute(create.getString(2)); // unqualified: made in the target's database
        }
        statement.execute(
            "INSERT INTO `" + table + "` SELECT * FROM `" + template + "`.`" + table + "`");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("copying the schema template failed", e);
    }
  }

  /** The template database's name, migrating it first when this JVM has none yet. */
  static synchronized String template() {
    if (templateName == null) {
      String name =
          "ax_template_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
      DatabaseCoordinates coordinates = SharedInfrastructure.get().createDatabase(name);
      try (HikariDataSource dataSource =
          Database.open(
              coordinates.jdbcUrl(), coordinates.user(), coordinates.password(), 2, "template")) {
        Database.migrate(dataSource);
      }
      templateName = name;
    }
    return templateName;
  }

  /** The base tables of {@code database}, by name. */
  static List<String> tables(Connection connection, String database) throws SQLException {
    List<String> tables = new ArrayList<>();
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT table_name FROM information_schema.tables"
                + " WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name")) {
      select.setString(1, database);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          tables.add(rows.getString(1));
        }
      }
    }
    return tables;
  }
}
