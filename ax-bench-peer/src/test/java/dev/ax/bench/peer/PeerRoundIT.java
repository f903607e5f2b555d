package dev.ax.bench.peer;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.ax.embedded.EmbeddedDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The peer's rounds through a real db-scheduler on a real MariaDB, with each polling strategy. */
class PeerRoundIT {

  @TempDir static Path dir;

  private static EmbeddedDatabase database;
  private static HikariDataSource dataSource;

  @BeforeAll
  static void start() throws Exception {
    database = EmbeddedDatabase.start(dir);
    try (Connection connection =
            DriverManager.getConnection(
                database.serverJdbcUrl(), database.user(), database.password());
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE DATABASE IF NOT EXISTS peer");
    }
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(database.jdbcUrl("peer"));
    config.setUsername(database.user());
    config.setPassword(database.password());
    config.setMaximumPoolSize(6);
    dataSource = new HikariDataSource(config);
    PeerTable.create(dataSource);
  }

  @AfterAll
  static void stop() {
    if (dataSource != null) {
      dataSource.close();
    }
    if (database != null) {
      database.close();
    }
  }

  @ParameterizedTest
  @EnumSource(PeerSettings.Strategy.class)
  void everyTaskStartsOnceAndNoneEarly(PeerSettings.Strategy strategy) throws Exception {
    PeerRound round =
        new PeerRound(
            dataSource,
            PeerTable.NAME,
            PeerSettings.of(strategy, 4, Duration.ofMillis(10)),
            Clock.systemUTC(),
            Duration.ofSeconds(30));
    String runId = "it-" + strategy.cliName();

    PeerOutcome outcome = round.run(runId, 300, Duration.ofSeconds(1), Duration.ofSeconds(1));

    assertThat(outcome.completed()).isEqualTo(300);
    assertThat(outcome.early()).isZero();
    assertThat(outcome.duplicates()).isZero();
    assertThat(outcome.lateness().getTotalCount()).isEqualTo(300);
    assertThat(outcome.line())
        .startsWith("PEER run=" + runId + " tasks=300 completed=300 missing=0 early=0 dup=0 p50=")
        .contains(" hist=");
    // db-scheduler deletes a one-time task's row when it completes: nothing is left behind.
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM " + PeerTable.NAME)) {
      rows.next();
      assertThat(rows.getInt(1)).isZero();
    }
  }
}
