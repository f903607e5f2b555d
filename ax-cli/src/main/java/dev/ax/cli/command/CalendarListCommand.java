package dev.ax.cli.command;

import dev.ax.api.client.ApiClient;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.Namespace;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ax calendar list [--namespace <ns>]}: a namespace's calendars with their rules. */
@Command(name = "list", description = "List the exclusion calendars of a namespace.")
final class CalendarListCommand extends DatabaseSubcommand {

  @Option(
      names = "--namespace",
      paramLabel = "<ns>",
      defaultValue = "default",
      description = "On the database: whose calendars (default: ${DEFAULT-VALUE}).")
  private String namespace;

  @Option(names = "--json", description = "The calendars as JSON (as GET /api/v1/calendars).")
  private boolean json;

  @Override
  void checkOptions() {
    if (Namespace.parse(namespace).isEmpty()) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--namespace: no namespace name: " + namespace);
    }
  }

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    return ApiMode.print(api, "calendars", out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) {
    var calendars = CalendarOptions.board(db).list(Namespace.parse(namespace).orElseThrow());
    if (json) {
      out.println(AxJson.MAPPER.valueToTree(calendars).toPrettyString());
      return ExitCodes.OK;
    }
    CalendarOptions.printTable(calendars, out);
    return ExitCodes.OK;
  }
}
