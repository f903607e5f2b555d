package dev.ax.cli.command;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ax dlq}: the operator's view of dead letters: {@code list}, {@code show}, {@code replay}
 * and {@code discard}. Talks to the database named by {@code AX_JDBC_URL} (with {@code
 * AX_JDBC_USER}, {@code AX_JDBC_PASSWORD}), or else to the embedded one of a running {@code ax up}
 * (from its {@code up.env}); {@code replay} also needs the broker, found the same way as by {@code
 * ax submit}. Each subcommand runs on the main thread.
 */
@Command(
    name = "dlq",
    mixinStandardHelpOptions = true,
    description = "Dead letters: list, show, replay, discard.",
    subcommands = {
      DlqListCommand.class,
      DlqShowCommand.class,
      DlqReplayCommand.class,
      DlqDiscardCommand.class
    })
public final class DlqCommand implements Runnable {

  static final String PROCESS_NAME = "ax-dlq";

  @Spec private CommandSpec spec;

  @Mixin private WorkDirOptions workDir;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "Missing command: give one of list, show, replay, discard");
  }

  /** The work dir, given to {@code ax dlq} or to its subcommand (the option is inherited). */
  WorkDirOptions workDir() {
    return workDir;
  }
}
