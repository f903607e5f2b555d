package dev.ax.cli.command;

import dev.ax.api.audit.OperatorLog;
import dev.ax.api.client.ApiClient;
import dev.ax.api.write.DeadLetterActions;
import dev.ax.common.contract.AxJson;
import dev.ax.deadletter.DeadLetterStore;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code ax dlq discard <id>}: closes an open dead letter without running it. Runs on the main
 * thread.
 */
@Command(
    name = "discard",
    description = "Close an open dead letter without running it, with a reason.")
final class DlqDiscardCommand extends DatabaseSubcommand {

  @Parameters(paramLabel = "<id>", description = "The dead letter's id.")
  private long id;

  @Option(names = "--reason", required = true, paramLabel = "<text>", description = "Why.")
  private String reason;

  @Override
  void checkOptions() {
    if (reason.isBlank()) {
      throw new ParameterException(spec.commandLine(), "--reason must not be blank");
    }
  }

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    return ApiMode.post(
        api,
        "deadletters/" + id + "/discard",
        AxJson.MAPPER.createObjectNode().put("reason", reason),
        out);
  }

  /** Discards the letter, if it is open. */
  @Override
  int run(CliDatabase db, PrintWriter out) {
    DeadLetterStore letters = new DeadLetterStore(db.dataSource);
    DeadLetterActions actions =
        new DeadLetterActions(letters, null, new OperatorLog(db.dataSource), db.clock::millis);
    switch (actions.discard(id, Operator.name(), reason)) {
      case NOT_FOUND -> throw new CliFailure(ExitCodes.FAILED, "no dead letter " + id);
      case NOT_OPEN ->
          throw new CliFailure(
              ExitCodes.FAILED,
              "dead letter " + id + " is not open (replayed or discarded before)");
      case DISCARDED -> {}
    }
    out.println("dead letter " + id + ": discarded");
    return ExitCodes.OK;
  }
}
