package dev.ax.cli.command;

import picocli.CommandLine.Command;

/**
 * {@code ax dlq}: the operator's view of dead letters: {@code list}, {@code show}, {@code replay}
 * and {@code discard}. Talks to the database named by {@code AX_JDBC_URL} (with {@code
 * AX_JDBC_USER}, {@code AX_JDBC_PASSWORD}), or else to the embedded one of a running {@code ax up}
 * (from its {@code up.env}); {@code replay} also needs the broker, found the same way as by {@code
 * ax submit}. Each subcommand runs on the main thread.
 */
@Command(
    name = "dlq",
    description = "Dead letters: list, show, replay, discard.",
    subcommands = {
      DlqListCommand.class,
      DlqShowCommand.class,
      DlqReplayCommand.class,
      DlqDiscardCommand.class
    })
public final class DlqCommand extends DatabaseCommandGroup {

  static final String PROCESS_NAME = "ax-dlq";

  public DlqCommand() {
    super(PROCESS_NAME, "list, show, replay, discard");
  }
}
