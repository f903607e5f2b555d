package dev.ax.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.api.write.CalendarBoard;
import dev.ax.cli.text.Columns;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.ExclusionCalendarJson;
import dev.ax.common.model.Namespace;
import dev.ax.common.store.CalendarStore;
import dev.ax.common.store.CalendarStore.Change;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The rules of a calendar as {@code ax calendar create} and {@code update} take them: a {@code
 * --file} of calendar JSON (docs/contract/calendar.schema.json) and/or flags; flags add dates,
 * ranges and weekly days to the file's and replace its zone and description. Also what the
 * subcommands share: names, the board over the database, outcomes and the table. A picocli mixin;
 * its helpers are stateless.
 */
final class CalendarOptions {

  /** The longest calendar file read. */
  static final long MAX_FILE_BYTES = 1 << 20;

  @Option(
      names = "--zone",
      paramLabel = "<zone>",
      description = "IANA zone of its days, e.g. Europe/Berlin.")
  String zone;

  @Option(
      names = "--date",
      paramLabel = "<yyyy-MM-dd>",
      description = "An excluded day; repeatable.")
  List<String> dates = new ArrayList<>();

  @Option(
      names = "--range",
      paramLabel = "<from..to>",
      description = "Excluded days from..to, both inclusive (2026-12-24..2026-12-31); repeatable.")
  List<String> ranges = new ArrayList<>();

  @Option(
      names = "--weekly",
      paramLabel = "<days>",
      split = ",",
      description = "Excluded days of every week: MON,TUE,WED,THU,FRI,SAT,SUN; repeatable.")
  List<String> weekly = new ArrayList<>();

  @Option(names = "--description", paramLabel = "<text>", description = "For people.")
  String description;

  @Option(names = "--file", paramLabel = "<path>", description = "Calendar JSON to start from.")
  Path file;

  @Option(names = "--reason", paramLabel = "<text>", description = "Why; kept in the audit log.")
  String reason;

  /**
   * The calendar's JSON from the file and the flags, checked by reading it as {@code name} would.
   *
   * @throws ParameterException with the reason when anything is wrong
   */
  ObjectNode json(CommandSpec spec, String name) {
    ObjectNode node = AxJson.MAPPER.createObjectNode();
    if (file != null) {
      try {
        if (Files.size(file) > MAX_FILE_BYTES) {
          throw new ParameterException(
              spec.commandLine(), "--file: at most " + MAX_FILE_BYTES + " bytes: " + file);
        }
        JsonNode read = AxJson.MAPPER.readTree(Files.readString(file));
        if (!(read instanceof ObjectNode object)) {
          throw new ParameterException(spec.commandLine(), "--file: a calendar is a JSON object");
        }
        node = object;
      } catch (IOException e) {
        throw new ParameterException(spec.commandLine(), "--file: " + e.getMessage());
      }
    }
    if (zone != null) {
      node.put("zone", zone);
    }
    if (description != null) {
      node.put("description", description);
    }
    add(node, "dates", dates);
    add(node, "ranges", ranges);
    add(node, "weekly", weekly.stream().map(String::strip).toList());
    try {
      ExclusionCalendarJson.read(localName(name), node);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    return node;
  }

  private static void add(ObjectNode node, String field, List<String> values) {
    if (values.isEmpty()) {
      return;
    }
    ArrayNode array =
        node.has(field) && node.get(field).isArray()
            ? (ArrayNode) node.get(field)
            : node.putArray(field);
    values.forEach(array::add);
  }

  String reasonOr(String fallback) {
    return reason == null ? fallback : reason;
  }

  /** Refuses a name that is no calendar's, stored ({@code ns~name}) or plain. */
  static void checkName(CommandSpec spec, String name) {
    String problem = CalendarBoard.nameProblem(localName(name));
    if (problem == null && name.indexOf(Namespace.SEPARATOR) >= 0) {
      problem =
          Namespace.parse(name.substring(0, name.indexOf(Namespace.SEPARATOR))).isPresent()
              ? null
              : "no namespace in " + name;
    }
    if (problem != null) {
      throw new ParameterException(spec.commandLine(), problem);
    }
  }

  /** Refuses a stored name through the API: there the namespace is {@code AX_NAMESPACE}'s. */
  static String apiName(String name) {
    if (name.indexOf(Namespace.SEPARATOR) >= 0) {
      throw new CliFailure(
          ExitCodes.BAD_CONFIG,
          "through AX_API_URL give the calendar's plain name and its namespace in AX_NAMESPACE: "
              + name);
    }
    return ApiMode.segment(name);
  }

  static Namespace namespace(String name) {
    return Namespace.of(name);
  }

  static String localName(String name) {
    return Namespace.localId(name);
  }

  static CalendarBoard board(CliDatabase db) {
    return new CalendarBoard(
        new CalendarStore(db.dataSource), new OperatorLog(db.dataSource), db.clock::millis);
  }

  /** Prints what {@code change} did to calendar {@code name}; exit 0, or FAILED. */
  static int outcome(Change change, String name, PrintWriter out) {
    switch (change) {
      case EXISTS ->
          throw new CliFailure(
              ExitCodes.FAILED, "calendar " + name + " exists; change it with ax calendar update");
      case NO_CALENDAR -> throw new CliFailure(ExitCodes.FAILED, "no calendar " + name);
      case FULL ->
          throw new CliFailure(
              ExitCodes.FAILED,
              "calendar "
                  + name
                  + ": refused, at most "
                  + CalendarStore.MAX_CALENDARS
                  + " calendars");
      default -> {
        out.println("calendar " + name + ": " + change.name().toLowerCase(Locale.ROOT));
        return ExitCodes.OK;
      }
    }
  }

  static void printTable(List<ObjectNode> calendars, PrintWriter out) {
    Columns.<ObjectNode>builder()
        .left("calendar", c -> c.get("name").asText())
        .left("zone", c -> c.get("zone").asText())
        .left("dates", 40, c -> joined(c.get("dates"), false))
        .left("ranges", 40, c -> joined(c.get("ranges"), true))
        .left("weekly", c -> joined(c.get("weekly"), false))
        .right("version", c -> c.get("version").asLong())
        .left("description", 40, c -> c.path("description").asText(""))
        .build()
        .table(calendars)
        .print(out, "");
  }

  static String joined(JsonNode array, boolean ranges) {
    List<String> items = new ArrayList<>();
    for (JsonNode item : array) {
      items.add(
          ranges ? item.get("from").asText() + ".." + item.get("to").asText() : item.asText());
    }
    return String.join(",", items);
  }
}
