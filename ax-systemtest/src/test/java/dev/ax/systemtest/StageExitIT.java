package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ingest.IngestMain;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A stage process that cannot start for its configuration exits 2 with the key and value. */
@ExtendWith(AxInfraExtension.class)
class StageExitIT {

  @Test
  void aMetricsPortInUseExitsTwoWithTheKeyAndValueAndNoStackTrace(AxTestEnv env) throws Exception {
    try (ServerSocket busy = new ServerSocket()) {
      busy.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      String bind = "127.0.0.1:" + busy.getLocalPort();
      String node = "exit-" + busy.getLocalPort();

      Process stage =
          StageProcess.start(env, IngestMain.class, node, Map.of("AX_METRICS_BIND", bind));

      assertThat(stage.waitFor(60, TimeUnit.SECONDS)).as("the stage ends by itself").isTrue();
      assertThat(stage.exitValue()).isEqualTo(2);
      String output = Files.readString(Path.of("target", "stage-processes", node + ".log"));
      assertThat(output).contains("AX_METRICS_BIND=" + bind).doesNotContain("\tat ");
    }
  }

  /**
   * The migration runs once, by {@code ax migrate}; a stage that does not migrate refuses a schema
   * that is behind (exit 2, saying what to run) and starts on a current one.
   */
  @Test
  void aStageThatDoesNotMigrateNeedsAxMigrateFirst(AxTestEnv env) throws Exception {
    String database = "fresh_" + Long.toHexString(System.nanoTime());
    String url =
        env.database().jdbcUrl().replaceFirst("(jdbc:mysql://[^/]+/)[^?]*", "$1" + database);
    try (var connection =
            java.sql.DriverManager.getConnection(
                env.database().jdbcUrl(), env.database().user(), env.database().password());
        var statement = connection.createStatement()) {
      statement.execute("CREATE DATABASE " + database);
    }
    Map<String, String> noMigration = Map.of("AX_JDBC_URL", url, "AX_DB_MIGRATE", "false");

    Process behind = StageProcess.start(env, IngestMain.class, database + "-behind", noMigration);
    assertThat(behind.waitFor(60, TimeUnit.SECONDS)).as("the stage ends by itself").isTrue();
    assertThat(behind.exitValue()).isEqualTo(2);
    assertThat(Files.readString(Path.of("target", "stage-processes", database + "-behind.log")))
        .contains("schema is at version 0", "ax migrate")
        .doesNotContain("\tat ");

    Process migrate =
        StageProcess.start(
            env, dev.ax.cli.AxCli.class, database + "-migrate", noMigration, "migrate");
    assertThat(migrate.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(migrate.exitValue()).isZero();
    assertThat(Files.readString(Path.of("target", "stage-processes", database + "-migrate.log")))
        .contains("schema at version " + dev.ax.common.store.Database.SCHEMA_VERSION + ": applied");

    Process current = StageProcess.start(env, IngestMain.class, database + "-current", noMigration);
    try {
      Path log = Path.of("target", "stage-processes", database + "-current.log");
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(60))
          .until(() -> Files.readString(log).contains("ax-ingest running"));
      assertThat(current.isAlive()).isTrue();
    } finally {
      current.destroy();
      current.waitFor(30, TimeUnit.SECONDS);
    }
  }
}
