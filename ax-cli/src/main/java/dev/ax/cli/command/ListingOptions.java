package dev.ax.cli.command;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ax.cli.text.Columns;
import dev.ax.common.contract.AxJson;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --limit} and {@code --json} of the commands that list rows ({@code ax task list}, {@code
 * ax audit}): how many at most, and a JSON array instead of a table. Filled by picocli on the main
 * thread.
 */
final class ListingOptions {

  /** The most rows one listing returns, whatever is asked. */
  static final int MAX_LIMIT = 10_000;

  @Option(
      names = "--limit",
      defaultValue = "50",
      paramLabel = "<n>",
      description = "At most this many (default: ${DEFAULT-VALUE}).")
  int limit;

  @Option(
      names = "--json",
      description =
          "JSON, for scripts: the API's (ax task list: the page GET /api/v1/tasks answers).")
  boolean json;

  /**
   * @throws ParameterException when {@code --limit} is outside 1..{@value #MAX_LIMIT}
   */
  void check(CommandSpec spec) {
    OptionChecks.requireInRange(spec, "--limit", limit, 1, MAX_LIMIT);
  }

  /**
   * Prints {@code rows} as one JSON array when {@code --json} asks for it, else as the table of
   * {@code columns} followed by the {@code summary} line.
   */
  <T> void print(PrintWriter out, List<T> rows, Columns<T> columns, String summary)
      throws JsonProcessingException {
    if (json) {
      ArrayNode array = AxJson.MAPPER.createArrayNode();
      rows.forEach(row -> array.add(AxJson.MAPPER.valueToTree(row)));
      out.println(AxJson.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(array));
      return;
    }
    columns.table(rows).print(out, "");
    out.println(summary);
  }
}
