package dev.ax.cli.command;

import dev.ax.api.client.ApiClient;
import dev.ax.api.write.PoolBoard;
import dev.ax.common.contract.AxJson;
import dev.ax.common.store.PoolStore.Change;
import java.io.PrintWriter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ax pool register|drain|undrain <name> <url>}: one change to one endpoint, on the database
 * or through the API route of the same name.
 */
abstract class PoolEndpointChange extends DatabaseSubcommand {

  @Parameters(index = "0", paramLabel = "<name>", description = "the pool")
  private String name;

  @Parameters(index = "1", paramLabel = "<url>", description = "the endpoint's base URL")
  private String url;

  @Option(names = "--reason", paramLabel = "<text>", description = "Why; kept in the audit log.")
  private String reason;

  /** The API route's last segment, and the word in the default reason. */
  abstract String action();

  abstract Change change(PoolBoard board, String pool, String url, String actor, String reason);

  @Override
  final void checkOptions() {
    PoolOptions.checkName(spec, name);
    PoolOptions.checkUrl(spec, url);
  }

  private String reason() {
    return reason == null ? "by ax pool " + action() : reason;
  }

  @Override
  final int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    return ApiMode.post(
        api,
        "pools/"
            + ApiMode.segment(name)
            + "/"
            + (action().equals("register") ? "endpoints" : action()),
        AxJson.MAPPER.createObjectNode().put("url", url).put("reason", reason()),
        out);
  }

  @Override
  final int run(CliDatabase db, PrintWriter out) {
    Change change = change(PoolOptions.board(db), name, url, Operator.name(), reason());
    return PoolOptions.outcome(
        change, "endpoint " + PoolBoard.normalized(url) + " of pool " + name, out);
  }
}
