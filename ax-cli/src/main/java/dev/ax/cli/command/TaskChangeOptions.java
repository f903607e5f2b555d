package dev.ax.cli.command;

import picocli.CommandLine.Parameters;

/**
 * What every {@code ax task} command that changes one task takes: the task, why, and the command id
 * that makes a repeat change nothing. A picocli mixin; filled by the parser on the main thread.
 */
final class TaskChangeOptions extends ChangeReasonOptions {

  @Parameters(index = "0", paramLabel = "<taskId>", description = "The task.")
  String taskId;
}
