package dev.ax.cli.command;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * A command whose subcommands work on one database ({@code ax dlq}, {@code ax task}): it holds the
 * work dir they share ({@code --work-dir} is inherited, so it may be given to either) and the name
 * their connections and clients go by; run without a subcommand, it is a usage error naming them.
 * Its {@code --help} and {@code --version} come from here too (picocli ORs {@code
 * mixinStandardHelpOptions} over the class hierarchy). Filled by picocli and used on the main
 * thread.
 */
@Command(mixinStandardHelpOptions = true)
abstract class DatabaseCommandGroup implements Runnable {

  @Spec CommandSpec spec;

  @Mixin private WorkDirOptions workDir;

  private final String processName;
  private final String subcommandNames;

  /**
   * @param processName what the subcommands' connections and clients are named, e.g. {@code ax-dlq}
   * @param subcommandNames the subcommands, as the usage error lists them
   */
  DatabaseCommandGroup(String processName, String subcommandNames) {
    this.processName = processName;
    this.subcommandNames = subcommandNames;
  }

  @Override
  public final void run() {
    throw new ParameterException(
        spec.commandLine(), "Missing command: give one of " + subcommandNames);
  }

  /** The work dir, given to this command or to its subcommand. */
  final WorkDirOptions workDir() {
    return workDir;
  }

  final String processName() {
    return processName;
  }
}
