package dev.ax.cli.command;

import dev.ax.api.audit.OperatorLog;
import dev.ax.api.client.ApiClient;
import dev.ax.api.write.SwitchBoard;
import dev.ax.cli.text.Columns;
import dev.ax.common.contract.AxJson;
import dev.ax.common.store.SwitchStore;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code ax switch}: shows the emergency switches, or flips one. Every stage reads them every
 * {@code AX_SWITCH_POLL} and logs the change once when it takes effect there. Runs on the main
 * thread.
 */
@Command(
    name = "switch",
    description = {
      "Show the emergency switches, or set one: `ax switch retries off` sends every failure"
          + " straight to a dead letter and holds pending retries; `ax switch intake off` stops"
          + " ingest reading commands (they wait in Kafka); `ax switch dispatch off` (or"
          + " dispatch.<group>, or dispatch.<namespace>~* for a namespace's groups) stops"
          + " dispatchers claiming (due instances wait DISPATCHED); intake.<namespace> off holds"
          + " one namespace's commands;"
          + " `ax switch serial on` makes each dispatcher run one attempt at a time per pool.",
      "Every stage a switch concerns picks a change up within AX_SWITCH_POLL, logs it once and"
          + " records it: the table shows which stages (name@node) have applied the current"
          + " version and which are still behind."
    })
public final class SwitchCommand extends WorkDirCommand {

  private static final Columns<SwitchBoard.SwitchView> COLUMNS =
      Columns.<SwitchBoard.SwitchView>builder()
          .left("switch", SwitchBoard.SwitchView::name)
          .left("value", v -> v.neverSet() ? v.value() + " (never set)" : v.value())
          .right("version", SwitchBoard.SwitchView::version)
          .left("set by", v -> v.setBy() == null ? "" : v.setBy())
          .left("at", v -> v.setAtMs() == null ? "" : Instant.ofEpochMilli(v.setAtMs()).toString())
          .left("applied by", v -> String.join(", ", v.appliedBy()))
          .left("behind", v -> String.join(", ", v.behind()))
          .build();

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "<switch>",
      description =
          "intake, intake.<namespace>, dispatch, dispatch.<group>, dispatch.<namespace>~*,"
              + " retries or serial")
  private String name;

  @Parameters(index = "1", arity = "0..1", paramLabel = "<value>", description = "on or off")
  private String value;

  @Option(names = "--json", description = "The switches as a JSON array (as GET /api/v1/switches).")
  private boolean json;

  @Option(
      names = "--reason",
      paramLabel = "<text>",
      description = "Why; kept in the audit log with the change.")
  private String reason;

  @Override
  public Integer call() throws InterruptedException {
    String normalised = value == null ? null : value.toLowerCase(Locale.ROOT);
    if (name != null) {
      if (value == null) {
        throw new ParameterException(spec.commandLine(), "give the value to set: one of [on, off]");
      }
      String problem = SwitchBoard.problem(name, normalised);
      if (problem != null) {
        throw new ParameterException(spec.commandLine(), problem);
      }
    }
    if (reason != null && (reason.isBlank() || reason.chars().anyMatch(Character::isISOControl))) {
      throw new ParameterException(spec.commandLine(), "--reason must be one line of text");
    }
    Optional<ApiClient> api = ApiMode.client();
    if (api.isPresent()) {
      return onApi(api.get(), normalised);
    }
    return CliDatabase.run(
        spec, workDir, "ax-switch", (db, out) -> setAndPrint(db, out, normalised));
  }

  /** Through the API: sets the switch named, if any, else prints every switch. */
  private int onApi(ApiClient api, String normalised) throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    if (name == null) {
      return ApiMode.print(api, "switches", out);
    }
    return ApiMode.post(
        api,
        "switches/" + ApiMode.segment(name),
        AxJson.MAPPER
            .createObjectNode()
            .put("value", normalised)
            .put("reason", reason == null ? "by ax switch" : reason),
        out);
  }

  /** Sets the switch named, if any, to {@code normalised}, then prints every known switch. */
  private int setAndPrint(CliDatabase db, PrintWriter out, String normalised) {
    SwitchBoard board =
        new SwitchBoard(
            new SwitchStore(db.dataSource), new OperatorLog(db.dataSource), db.clock::millis);
    if (name != null) {
      boolean changed = board.set(name, normalised, Operator.name(), reason);
      if (json) {
        out.println(
            AxJson.MAPPER
                .createObjectNode()
                .put("name", name)
                .put("value", normalised)
                .put("changed", changed));
        return ExitCodes.OK;
      }
      out.println(
          "switch "
              + name
              + (changed ? " set to " : " was already ")
              + normalised
              + (changed ? "; every stage applies it within AX_SWITCH_POLL" : ""));
    }
    if (json) {
      out.println(AxJson.MAPPER.valueToTree(board.view()).toPrettyString());
      return ExitCodes.OK;
    }
    COLUMNS.table(board.view()).print(out, "");
    return ExitCodes.OK;
  }
}
