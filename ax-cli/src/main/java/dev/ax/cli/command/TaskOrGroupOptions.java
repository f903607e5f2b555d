package dev.ax.cli.command;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What {@code ax task pause} and {@code resume} take: one task, or a whole group with {@code
 * --group} (exactly one of the two, checked when the command runs), why, and the command id. A
 * picocli mixin; filled by the parser on the main thread.
 */
final class TaskOrGroupOptions extends ChangeReasonOptions {

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "<taskId>",
      description = "The task (or give --group).")
  String taskId;

  @Option(
      names = "--group",
      paramLabel = "<group>",
      description =
          "Every task of this group instead: those in it when ingest applies the command; tasks"
              + " created in it later are not changed.")
  String group;
}
