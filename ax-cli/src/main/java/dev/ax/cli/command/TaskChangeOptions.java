package dev.ax.cli.command;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What every {@code ax task} command that changes a task takes: the task, why, and the command id
 * that makes a repeat change nothing. A picocli mixin; filled by the parser on the main thread.
 */
final class TaskChangeOptions {

  @Parameters(index = "0", paramLabel = "<taskId>", description = "The task.")
  String taskId;

  @Option(names = "--reason", paramLabel = "<text>", description = "Why; kept in the audit.")
  String reason;

  @Option(
      names = "--command-id",
      paramLabel = "<id>",
      description = "Makes a repeat change nothing (default: a new random id).")
  String commandId;
}
