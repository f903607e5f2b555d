package dev.ax.cli.command;

import dev.ax.api.client.ApiClient;
import dev.ax.api.write.CalendarBoard;
import dev.ax.common.contract.AxJson;
import dev.ax.common.store.CalendarStore.Deletion;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax calendar delete <name>}: refused, naming them, while live tasks name it. */
@Command(
    name = "delete",
    description = "Delete an exclusion calendar; refused while a live task names it.")
final class CalendarDeleteCommand extends DatabaseSubcommand {

  @Parameters(index = "0", paramLabel = "<name>")
  private String name;

  @Option(names = "--reason", paramLabel = "<text>", description = "Why; kept in the audit log.")
  private String reason;

  @Override
  void checkOptions() {
    CalendarOptions.checkName(spec, name);
  }

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    return ApiMode.post(
        api,
        "calendars/" + CalendarOptions.apiName(name) + "/delete",
        AxJson.MAPPER
            .createObjectNode()
            .put("reason", reason == null ? "by ax calendar delete" : reason),
        out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) {
    Deletion deletion =
        CalendarOptions.board(db)
            .delete(
                CalendarOptions.namespace(name),
                CalendarOptions.localName(name),
                Operator.name(),
                reason == null ? "by ax calendar delete" : reason);
    if (!deletion.existed()) {
      throw new CliFailure(ExitCodes.FAILED, "no calendar " + name);
    }
    if (!deletion.deleted()) {
      throw new CliFailure(ExitCodes.FAILED, CalendarBoard.inUse(name, deletion));
    }
    out.println("calendar " + name + ": deleted");
    return ExitCodes.OK;
  }
}
