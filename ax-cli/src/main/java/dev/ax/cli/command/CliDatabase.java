package dev.ax.cli.command;

import com.zaxxer.hikari.HikariDataSource;
import dev.ax.cli.local.ConfigCheck;
import dev.ax.cli.local.UpEnvFile;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.store.Database;
import dev.ax.common.store.DatabaseTls;
import dev.ax.common.time.DatabaseClock;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The database an operator command ({@code ax dlq}, {@code ax switch}, {@code ax flow}, {@code ax
 * migrate}) works on: the one named by {@code AX_JDBC_URL} (with {@code AX_JDBC_USER}, {@code
 * AX_JDBC_PASSWORD}), else the embedded one of the {@code ax up} running in the work directory
 * (from its {@code up.env}). A small pool and the database clock. Used by one thread.
 *
 * <p>{@link #run} is the one flow of every command that works on it: open, print, flush, return the
 * exit code, close.
 */
final class CliDatabase implements AutoCloseable {

  /**
   * What a command does on the database: prints to {@code out} and returns its exit code.
   *
   * @param <X> what it may throw besides unchecked exceptions (none: {@code RuntimeException})
   */
  @FunctionalInterface
  interface Work<X extends Exception> {
    int run(CliDatabase db, PrintWriter out) throws X;
  }

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
    dataSource =
        Database.open(
            url,
            user,
            config.jdbcPassword(),
            Database.Pool.of(2, processName).withTls(DatabaseTls.of(config)));
    clock = DatabaseClock.start(dataSource, Duration.ofMinutes(1));
  }

  /**
   * Opens the database of {@code workDir} as {@code processName}, runs {@code work} with the
   * command's standard output, flushes it and returns the exit code {@code work} returned. The
   * database is closed however {@code work} ends. The libraries' logs go quiet first: the command's
   * output is the point.
   *
   * @throws CliFailure when neither {@code AX_JDBC_URL} nor the work dir's {@code up.env} names a
   *     database, or when {@code work} throws one
   */
  static <X extends Exception> int run(
      CommandSpec spec, WorkDirOptions workDir, String processName, Work<X> work) throws X {
    LogLevels.quiet();
    PrintWriter out = spec.commandLine().getOut();
    try (CliDatabase db = workDir.openDatabase(processName)) {
      int exitCode = work.run(db, out);
      out.flush();
      return exitCode;
    }
  }

  @Override
  public void close() {
    clock.close();
    dataSource.close();
  }
}
