package dev.ax.cli.command;

import dev.ax.api.client.ApiClient;
import dev.ax.api.write.PoolBoard;
import dev.ax.common.contract.AxJson;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax pool remove <name> [<url>]}: removes an endpoint, or the pool with its endpoints. */
@Command(
    name = "remove",
    description =
        "Remove an endpoint of a pool, or without <url> the pool and its endpoints (its tasks'"
            + " runs then fail, retryably, until it exists again).")
final class PoolRemoveCommand extends DatabaseSubcommand {

  @Parameters(index = "0", paramLabel = "<name>")
  private String name;

  @Parameters(index = "1", arity = "0..1", paramLabel = "<url>")
  private String url;

  @Option(names = "--reason", paramLabel = "<text>", description = "Why; kept in the audit log.")
  private String reason;

  @Override
  void checkOptions() {
    PoolOptions.checkName(spec, name);
    if (url != null) {
      PoolOptions.checkUrl(spec, url);
    }
  }

  private String reason() {
    return reason == null ? "by ax pool remove" : reason;
  }

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    var body = AxJson.MAPPER.createObjectNode().put("reason", reason());
    if (url != null) {
      body.put("url", url);
    }
    return ApiMode.post(api, "pools/" + ApiMode.segment(name) + "/remove", body, out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) {
    return PoolOptions.outcome(
        PoolOptions.board(db).remove(name, url, Operator.name(), reason()),
        url == null ? "pool " + name : "endpoint " + PoolBoard.normalized(url) + " of pool " + name,
        out);
  }
}
