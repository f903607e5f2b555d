package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.cli.AxCli;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.DatabaseCoordinates;
import dev.ax.embedded.junit.AxTestEnv;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import picocli.CommandLine;

/**
 * One run of {@code ax} in this JVM, as an operator would type it, against a test's servers: its
 * exit code and what it printed. {@link #pointAt} sets the system properties the CLI finds the
 * database and broker by, until the {@link Target} it returns is closed: a test holds it in its
 * try-with-resources, so no test leaves them set for the next.
 *
 * @param exitCode what {@code ax} exited with
 * @param out its standard output
 * @param err its standard error
 */
record CliRun(int exitCode, String out, String err) {

  private static final List<String> PROPERTIES =
      List.of(
          "AX_JDBC_URL",
          "AX_JDBC_USER",
          "AX_JDBC_PASSWORD",
          "AX_KAFKA_BOOTSTRAP",
          "AX_TOPIC_PREFIX");

  /** Runs {@code ax args}. */
  static CliRun ax(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = AxCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    return new CliRun(code, out.toString(), err.toString());
  }

  /**
   * The CLI pointed at a test's servers: closing it removes the system properties again. Not
   * thread-safe, as system properties are the whole JVM's: one test points the CLI at a time.
   */
  interface Target extends AutoCloseable {
    @Override
    void close();
  }

  /** Asserts that {@code ax} exited 0 (naming its standard error if not); its standard output. */
  String okOut() {
    assertThat(exitCode).as(err).isZero();
    return out;
  }

  /** Points the CLI at {@code env}'s database and {@code runtime}'s broker and topics. */
  static Target pointAt(AxTestEnv env, TestRuntime runtime) {
    DatabaseCoordinates db = env.database();
    System.setProperty("AX_JDBC_URL", db.jdbcUrl());
    System.setProperty("AX_JDBC_USER", db.user());
    System.setProperty("AX_JDBC_PASSWORD", db.password());
    System.setProperty("AX_KAFKA_BOOTSTRAP", runtime.bootstrapServers());
    System.setProperty("AX_TOPIC_PREFIX", env.topicPrefix());
    return () -> PROPERTIES.forEach(System::clearProperty);
  }
}
