package dev.ax.cli.command;

import dev.ax.cli.audit.OperatorLog;
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
    if (reason.isBlank()) {
      throw new ParameterException(spec.commandLine(), "--reason must not be blank");
    }
    return CliDatabase.run(spec, parent.workDir(), DlqCommand.PROCESS_NAME, this::discard);
  }

  /** Discards the letter, if it is open. */
  private int discard(CliDatabase db, PrintWriter out) {
    DeadLetterStore letters = new DeadLetterStore(db.dataSource);
    if (letters.find(id).isEmpty()) {
      throw new CliFailure(ExitCodes.FAILED, "no dead letter " + id);
    }
    String operator = Operator.name();
    if (!letters.discard(id, reason + " (by " + operator + ")", db.clock.millis())) {
      throw new CliFailure(
          ExitCodes.FAILED, "dead letter " + id + " is not open (replayed or discarded before)");
    }
    new OperatorLog(db.dataSource)
        .record(operator, "dlq discard", "dead letter " + id, reason, db.clock.millis());
    out.println("dead letter " + id + ": discarded");
    return ExitCodes.OK;
  }
}
