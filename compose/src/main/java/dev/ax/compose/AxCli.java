package dev.ax.compose;

import dev.ax.compose.cli.BenchCommand;
import dev.ax.compose.cli.CliErrorHandler;
import dev.ax.compose.cli.DemoCommand;
import dev.ax.compose.cli.DlqCommand;
import dev.ax.compose.cli.FlowCommand;
import dev.ax.compose.cli.MigrateCommand;
import dev.ax.compose.cli.ShortUsageErrors;
import dev.ax.compose.cli.SubmitCommand;
import dev.ax.compose.cli.SwitchCommand;
import dev.ax.compose.cli.UpCommand;
import dev.ax.compose.cli.VersionProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code ax} command line: {@code up}, {@code submit}, {@code demo}, {@code bench}, {@code
 * dlq}, {@code switch} and {@code flow}. Exit codes are those of {@link
 * dev.ax.compose.cli.ExitCodes}.
 *
 * <p>Each run builds its own {@link CommandLine}; nothing here is shared between threads.
 */
@Command(
    name = "ax",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description =
        "AX, a Kafka-backed task scheduler: run it on a laptop, submit tasks, try it out.",
    subcommands = {
      UpCommand.class,
      SubmitCommand.class,
      DemoCommand.class,
      BenchCommand.class,
      DlqCommand.class,
      SwitchCommand.class,
      MigrateCommand.class,
      FlowCommand.class,
      CommandLine.HelpCommand.class
    })
public final class AxCli implements Runnable {

  @Spec private CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(),
        "Missing command: give one of up, submit, demo, bench, dlq, switch, flow");
  }

  /** A configured command line for {@code ax}, e.g. for tests that set their own out and err. */
  public static CommandLine commandLine() {
    return new CommandLine(new AxCli())
        .setExecutionExceptionHandler(new CliErrorHandler())
        .setParameterExceptionHandler(new ShortUsageErrors());
  }

  /** Runs {@code ax} with {@code args} and returns the exit code. */
  public static int execute(String... args) {
    return commandLine().execute(args);
  }

  public static void main(String[] args) {
    System.exit(execute(args));
  }
}
