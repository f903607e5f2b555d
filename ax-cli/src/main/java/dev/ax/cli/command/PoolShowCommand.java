package dev.ax.cli.command;

import dev.ax.api.client.ApiClient;
import dev.ax.api.write.PoolBoard;
import dev.ax.common.contract.AxJson;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax pool show <name>}: a pool's endpoints with state, heartbeat age, online or not. */
@Command(name = "show", description = "Show an executor pool and its endpoints.")
final class PoolShowCommand extends DatabaseSubcommand {

  @Parameters(index = "0", paramLabel = "<name>")
  private String name;

  @Option(names = "--json", description = "The pool as JSON (as GET /api/v1/pools/<name>).")
  private boolean json;

  @Override
  void checkOptions() {
    PoolOptions.checkName(spec, name);
  }

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    return ApiMode.print(api, "pools/" + ApiMode.segment(name), out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) {
    PoolBoard.PoolView pool =
        PoolOptions.board(db)
            .pool(name)
            .orElseThrow(() -> new CliFailure(ExitCodes.FAILED, "no executor pool " + name));
    if (json) {
      out.println(AxJson.MAPPER.valueToTree(pool).toPrettyString());
      return ExitCodes.OK;
    }
    out.println(
        "pool "
            + pool.name()
            + ": "
            + pool.strategy()
            + ", offline after "
            + Duration.ofMillis(pool.offlineAfterMs()).toSeconds()
            + "s, "
            + pool.endpoints().size()
            + " endpoint(s)");
    PoolOptions.printEndpoints(pool.endpoints(), out);
    return ExitCodes.OK;
  }
}
