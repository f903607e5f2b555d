package dev.ax.cli.command;

import dev.ax.api.client.ApiClient;
import dev.ax.api.write.PoolBoard;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.PoolStrategy;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax pool create <name>}: creates a pool, or sets its strategy and offline-after. */
@Command(
    name = "create",
    description = "Create an executor pool, or set an existing one's strategy and offline-after.")
final class PoolCreateCommand extends DatabaseSubcommand {

  @Parameters(index = "0", paramLabel = "<name>", description = "a-z, 0-9 and -, 1..64 long")
  private String name;

  @Option(
      names = "--strategy",
      paramLabel = "<strategy>",
      defaultValue = "ROUND_ROBIN",
      description =
          "ROUND_ROBIN, CONSISTENT_HASH (by task id), LEAST_BUSY (fewest calls in flight) or"
              + " FAILOVER (first live in registration order); default ${DEFAULT-VALUE}.")
  private PoolStrategy strategy;

  @Option(
      names = "--offline-after",
      paramLabel = "<duration>",
      defaultValue = "90s",
      description = "An endpoint without a heartbeat for this long gets no runs (default 90s).")
  private Duration offlineAfter;

  @Option(names = "--reason", paramLabel = "<text>", description = "Why; kept in the audit log.")
  private String reason;

  @Override
  void checkOptions() {
    PoolOptions.checkName(spec, name);
    PoolOptions.checkOfflineAfter(spec, offlineAfter);
  }

  @Override
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    return ApiMode.post(
        api,
        "pools/" + ApiMode.segment(name),
        AxJson.MAPPER
            .createObjectNode()
            .put("strategy", strategy.name())
            .put("offlineAfterMs", Long.toString(offlineAfter.toMillis()))
            .put("reason", reason == null ? "by ax pool create" : reason),
        out);
  }

  @Override
  int run(CliDatabase db, PrintWriter out) {
    PoolBoard board = PoolOptions.board(db);
    return PoolOptions.outcome(
        board.create(
            name,
            strategy,
            offlineAfter,
            Operator.name(),
            reason == null ? "by ax pool create" : reason),
        "pool " + name,
        out);
  }
}
