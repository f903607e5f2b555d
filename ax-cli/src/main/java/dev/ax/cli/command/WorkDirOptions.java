package dev.ax.cli.command;

import dev.ax.common.config.CommonConfig;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The picocli mixin ({@code @Mixin WorkDirOptions}) of every command that works on a running AX:
 * {@code --work-dir}, where {@code ax up} keeps its data and writes {@code up.env}, and from it the
 * database ({@link CliDatabase}) and the broker ({@link BrokerLocator}) the command talks to when
 * {@code AX_JDBC_URL} or {@code AX_KAFKA_BOOTSTRAP} does not name them.
 *
 * <p>The option is inherited by subcommands, so {@code ax dlq --work-dir d list} and {@code ax dlq
 * list --work-dir d} set the same value (a command without subcommands has nothing to pass it to).
 * Where the help says something else for one command ({@code ax up} writes the directory, {@code ax
 * submit} reads it), the text is in {@code WorkDirOptions.properties}, keyed by the command's
 * qualified name. Set by picocli and then read by the command, both on the main thread.
 */
@Command(resourceBundle = "dev.ax.cli.command.WorkDirOptions")
final class WorkDirOptions {

  @Option(
      names = "--work-dir",
      defaultValue = ".ax",
      paramLabel = "<dir>",
      scope = ScopeType.INHERIT,
      description = "Where a running `ax up` wrote up.env (default: ${DEFAULT-VALUE}).")
  private Path workDir;

  Path workDir() {
    return workDir;
  }

  /**
   * The database named by {@code AX_JDBC_URL}, else that of the {@code ax up} in the work dir.
   *
   * @throws CliFailure when neither names one
   */
  CliDatabase openDatabase(String processName) {
    return new CliDatabase(workDir, processName);
  }

  /**
   * The broker named by {@code AX_KAFKA_BOOTSTRAP}, else that of the {@code ax up} in the work dir.
   *
   * @throws CliFailure when neither names one
   */
  BrokerLocator.Target locateBroker(CommonConfig config) {
    return BrokerLocator.locate(config, workDir);
  }
}
