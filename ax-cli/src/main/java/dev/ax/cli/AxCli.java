package dev.ax.cli;

import dev.ax.cli.command.AclCommand;
import dev.ax.cli.command.AuditCommand;
import dev.ax.cli.command.CalendarCommand;
import dev.ax.cli.command.CliErrorHandler;
import dev.ax.cli.command.ConsoleCommand;
import dev.ax.cli.command.DemoCommand;
import dev.ax.cli.command.DlqCommand;
import dev.ax.cli.command.DurationConverter;
import dev.ax.cli.command.FlowCommand;
import dev.ax.cli.command.InstantConverter;
import dev.ax.cli.command.MigrateCommand;
import dev.ax.cli.command.NamespaceCommand;
import dev.ax.cli.command.Operator;
import dev.ax.cli.command.PoolCommand;
import dev.ax.cli.command.RequeueCommand;
import dev.ax.cli.command.ShortUsageErrors;
import dev.ax.cli.command.SubmitCommand;
import dev.ax.cli.command.SwitchCommand;
import dev.ax.cli.command.TasksCommand;
import dev.ax.cli.command.UpCommand;
import dev.ax.cli.command.VersionProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code ax} command line: {@code up}, {@code submit}, {@code demo}, {@code dlq}, {@code task},
 * {@code switch}, {@code audit}, {@code migrate} and {@code flow}, and every {@link AxSubcommand}
 * on the class path (e.g. {@code bench} from ax-bench). Exit codes are those of {@link
 * dev.ax.cli.command.ExitCodes}.
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
      DlqCommand.class,
      TasksCommand.class,
      AuditCommand.class,
      RequeueCommand.class,
      SwitchCommand.class,
      MigrateCommand.class,
      FlowCommand.class,
      NamespaceCommand.class,
      PoolCommand.class,
      CalendarCommand.class,
      ConsoleCommand.class,
      AclCommand.class
    })
public final class AxCli implements Runnable {

  @Spec private CommandSpec spec;

  @Option(
      names = "--operator",
      paramLabel = "<name>",
      description =
          "Who runs this command, as the audit and `ax audit` name them (default: AX_OPERATOR,"
              + " else the operating-system user).")
  void operator(String name) {
    try {
      Operator.setFromFlag(name);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  @Override
  public void run() {
    String commands =
        spec.subcommands().keySet().stream()
            .filter(name -> !name.equals("help"))
            .collect(Collectors.joining(", "));
    throw new ParameterException(spec.commandLine(), "Missing command: give one of " + commands);
  }

  /** A configured command line for {@code ax}, e.g. for tests that set their own out and err. */
  public static CommandLine commandLine() {
    Operator.setFromFlag(null); // a flag given to an earlier run in this JVM does not carry over
    CommandLine commandLine = new CommandLine(new AxCli());
    for (AxSubcommand subcommand : ServiceLoader.load(AxSubcommand.class)) {
      commandLine.addSubcommand(subcommand);
    }
    // Last, so that the usage lists the commands first and then how to get help on one.
    commandLine.addSubcommand(new CommandLine.HelpCommand());
    // Every command reads durations and instants alike. After the last subcommand: picocli gives a
    // converter to the commands there are when it is registered.
    commandLine.registerConverter(Duration.class, new DurationConverter());
    commandLine.registerConverter(Instant.class, new InstantConverter());
    return commandLine
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
