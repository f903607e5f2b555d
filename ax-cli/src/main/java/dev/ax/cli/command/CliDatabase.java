package dev.ax.cli.command;

import com.zaxxer.hikari.HikariDataSource;
import dev.ax.cli.local.ConfigCheck;
import dev.ax.cli.local.UpEnvFile;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.store.Database;
import dev.ax.common.time.DatabaseClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The database an operator command ({@code ax dlq}, {@code ax switch}) works on: the one named by
 * {@code AX_JDBC_URL} (with {@code AX_JDBC_USER}, {@code AX_JDBC_PASSWORD}), else the embedded one
 * of the {@code ax up} running in the work directory (from its {@code up.env}). A small pool and
 * the database clock. Used by one thread.
 */
final class CliDatabase implements AutoCloseable {

  final CommonConfig config;
  final HikariDataSource dataSource;
  final DatabaseClock clock;

  /**
   * @throws CliFailure when neither names a database
   */
  CliDatabase(Path workDir, String processName) {
    config = ConfigCheck.commonFromEnvironment();
    String url;
    String user;
    if (!config.jdbcUrl().isBlank()) {
      url = config.jdbcUrl();
      user = config.jdbcUser();
    } else {
      Optional<UpEnvFile.Contents> upEnv = UpEnvFile.read(workDir);
      if (upEnv.isEmpty() || upEnv.get().jdbcUrl().isEmpty()) {
        throw new CliFailure(
            ExitCodes.BAD_CONFIG,
            "no database to work on: set AX_JDBC_URL (and AX_JDBC_USER, AX_JDBC_PASSWORD) or"
                + " start AX with `ax up` (it writes "
                + UpEnvFile.path(workDir)
                + ")");
      }
      url = upEnv.get().jdbcUrl();
      user = upEnv.get().jdbcUser();
    }
    dataSource = Database.open(url, user, config.jdbcPassword(), 2, processName);
    clock = DatabaseClock.start(dataSource, Duration.ofMinutes(1));
  }

  @Override
  public void close() {
    clock.close();
    dataSource.close();
  }
}
