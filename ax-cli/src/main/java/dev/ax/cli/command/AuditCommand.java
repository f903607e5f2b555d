package dev.ax.cli.command;

import dev.ax.api.audit.OperatorLog;
import dev.ax.api.client.ApiClient;
import dev.ax.cli.text.Columns;
import dev.ax.cli.text.Times;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ax audit}: what operators did through the CLI ({@code ax_operator_log}), newest first.
 * Runs on the main thread.
 */
@Command(
    name = "audit",
    description =
        "What operators did through ax (switches, dead-letter replays and discards, task"
            + " commands): who, when, on what, why; newest first.")
public final class AuditCommand extends WorkDirCommand {

  private static final Columns<OperatorLog.Entry> COLUMNS =
      Columns.<OperatorLog.Entry>builder()
          .left("at", entry -> Times.clock(entry.atMs()))
          .left("actor", OperatorLog.Entry::actor)
          .left("action", OperatorLog.Entry::action)
          .left("target", OperatorLog.Entry::target)
          .left("why", 80, OperatorLog.Entry::reason)
          .build();

  @Option(names = "--actor", paramLabel = "<name>", description = "Only this operator's actions.")
  private String actor;

  @Mixin private ListingOptions listing;

  @Override
  public Integer call() throws Exception {
    listing.check(spec);
    Optional<ApiClient> api = ApiMode.client();
    if (api.isPresent()) {
      ApiMode.checkLimit(listing.limit);
      return ApiMode.print(
          api.get(),
          "audit" + ApiMode.query(ApiMode.params("actor", actor, "limit", listing.limit)),
          spec.commandLine().getOut());
    }
    return CliDatabase.run(spec, workDir, "ax-audit", this::print);
  }

  private int print(CliDatabase db, PrintWriter out) throws Exception {
    List<OperatorLog.Entry> entries = new OperatorLog(db.dataSource).newest(actor, listing.limit);
    listing.print(out, entries, COLUMNS, entries.size() + " action(s)");
    return ExitCodes.OK;
  }
}
