package dev.ax.cli.command;

import dev.ax.api.client.ApiClient;
import dev.ax.api.write.PoolBoard;
import dev.ax.cli.text.Columns;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.EndpointState;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ax pool list}: every pool with its strategy and endpoints counted. */
@Command(name = "list", description = "List the executor pools.")
final class PoolListCommand extends DatabaseSubcommand {

  private static final Columns<PoolBoard.PoolView> COLUMNS =
      Columns.<PoolBoard.PoolView>builder()
          .left("pool", PoolBoard.PoolView::name)
          .left("strategy", PoolBoard.PoolView::strategy)
          .right("offline after", p -> Duration.ofMillis(p.offlineAfterMs()).toSeconds() + "s")
          .right("endpoints", p -> p.endpoints().size())
          .right(
              "online",
              p ->
                  p.endpoints().stream()
                      .filter(e -> e.online() && e.state() == EndpointState.ACTIVE)
                      .count())
          .right(
              "draining",
              p -> p.endpoints().stream().filter(e -> e.state() == EndpointState.DRAINING).count())
          .build();

  @Option(names = "--json", description = "The pools as JSON (as GET /api/v1/pools).")
  private boolean json;

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    return ApiMode.print(api, "pools", out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) {
    var pools = PoolOptions.board(db).pools();
    if (json) {
      out.println(AxJson.MAPPER.valueToTree(pools).toPrettyString());
      return ExitCodes.OK;
    }
    COLUMNS.table(pools).print(out, "");
    return ExitCodes.OK;
  }
}
