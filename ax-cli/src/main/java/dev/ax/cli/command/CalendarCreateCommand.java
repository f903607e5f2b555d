package dev.ax.cli.command;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.client.ApiClient;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.ExclusionCalendarJson;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code ax calendar create <name> --zone ... [--date|--range|--weekly|--file ...]}. */
@Command(name = "create", description = "Create an exclusion calendar.")
class CalendarCreateCommand extends DatabaseSubcommand {

  @Parameters(
      index = "0",
      paramLabel = "<name>",
      description = "[A-Za-z0-9._-]{1,64}; on the database <namespace>~<name> for a namespace's")
  String name;

  @Mixin CalendarOptions rules;

  private ObjectNode json;

  @Override
  void checkOptions() {
    CalendarOptions.checkName(spec, name);
    json = rules.json(spec, name);
  }

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    return ApiMode.post(
        api,
        "calendars/" + CalendarOptions.apiName(name) + (create() ? "" : "/update"),
        AxJson.MAPPER
            .createObjectNode()
            .put("reason", rules.reasonOr("by ax calendar " + (create() ? "create" : "update")))
            .set("calendar", json),
        out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) {
    return CalendarOptions.outcome(
        CalendarOptions.board(db)
            .put(
                CalendarOptions.namespace(name),
                ExclusionCalendarJson.read(CalendarOptions.localName(name), json),
                create(),
                Operator.name(),
                rules.reasonOr("by ax calendar " + (create() ? "create" : "update"))),
        name,
        out);
  }

  /** True for create, false for update (a subclass). */
  boolean create() {
    return true;
  }
}
