package dev.ax.cli.command;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.client.ApiClient;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax calendar show <name>}: one calendar with its rules. */
@Command(name = "show", description = "Show an exclusion calendar.")
final class CalendarShowCommand extends DatabaseSubcommand {

  @Parameters(index = "0", paramLabel = "<name>")
  private String name;

  @Option(names = "--json", description = "As JSON (as GET /api/v1/calendars/<name>).")
  private boolean json;

  @Override
  void checkOptions() {
    CalendarOptions.checkName(spec, name);
  }

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    return ApiMode.print(api, "calendars/" + CalendarOptions.apiName(name), out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) {
    ObjectNode calendar =
        CalendarOptions.board(db)
            .show(CalendarOptions.namespace(name), CalendarOptions.localName(name))
            .orElseThrow(() -> new CliFailure(ExitCodes.FAILED, "no calendar " + name));
    if (json) {
      out.println(calendar.toPrettyString());
      return ExitCodes.OK;
    }
    CalendarOptions.printTable(List.of(calendar), out);
    return ExitCodes.OK;
  }
}
