package dev.ax.cli.command;

import picocli.CommandLine.Option;

/**
 * What every {@code ax task} command that changes tasks takes besides its target: why, and the
 * command id that makes a repeat change nothing. The base of the mixins that add the target ({@link
 * TaskChangeOptions}, {@link TaskOrGroupOptions}); filled by the parser on the main thread.
 */
class ChangeReasonOptions {

  @Option(names = "--reason", paramLabel = "<text>", description = "Why; kept in the audit.")
  String reason;

  @Option(
      names = "--command-id",
      paramLabel = "<id>",
      description = "Makes a repeat change nothing (default: a new random id).")
  String commandId;
}
