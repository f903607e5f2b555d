package dev.ax.cli.command;

import dev.ax.deadletter.DeadLetterStore;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code ax dlq discard <id>}: closes an open dead letter without running it. Runs on the main
 * thread.
 */
@Command(
    name = "discard",
    mixinStandardHelpOptions = true,
    description = "Close an open dead letter without running it, with a reason.")
final class DlqDiscardCommand implements Callable<Integer> {

  @Spec private CommandSpec spec;

  @ParentCommand private DlqCommand parent;

  @Parameters(paramLabel = "<id>", description = "The dead letter's id.")
  private long id;

  @Option(names = "--reason", required = true, paramLabel = "<text>", description = "Why.")
  private String reason;

  @Override
  public Integer call() {
    LogLevels.quiet();
    if (reason.isBlank()) {
      throw new ParameterException(spec.commandLine(), "--reason must not be blank");
    }
    PrintWriter out = spec.commandLine().getOut();
    try (CliDatabase db = parent.workDir().openDatabase(DlqCommand.PROCESS_NAME)) {
      DeadLetterStore letters = new DeadLetterStore(db.dataSource);
      if (letters.find(id).isEmpty()) {
        throw new CliFailure(ExitCodes.FAILED, "no dead letter " + id);
      }
      if (!letters.discard(id, reason + " (by " + Operator.name() + ")", db.clock.millis())) {
        throw new CliFailure(
            ExitCodes.FAILED, "dead letter " + id + " is not open (replayed or discarded before)");
      }
      out.println("dead letter " + id + ": discarded");
      out.flush();
    }
    return ExitCodes.OK;
  }
}
