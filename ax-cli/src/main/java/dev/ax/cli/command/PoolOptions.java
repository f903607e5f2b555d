package dev.ax.cli.command;

import dev.ax.api.audit.OperatorLog;
import dev.ax.api.write.PoolBoard;
import dev.ax.common.store.PoolStore;
import dev.ax.common.store.PoolStore.Change;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * What the {@code ax pool} subcommands share: the checks of names and URLs (the API's own), the
 * board over the database, what a change's outcome prints and exits with, and the endpoint table.
 * Stateless.
 */
final class PoolOptions {

  private PoolOptions() {}

  static void checkName(CommandSpec spec, String name) {
    String problem = PoolBoard.nameProblem(name);
    if (problem != null) {
      throw new ParameterException(spec.commandLine(), problem);
    }
  }

  static void checkUrl(CommandSpec spec, String url) {
    String problem = PoolBoard.urlProblem(url);
    if (problem != null) {
      throw new ParameterException(spec.commandLine(), problem);
    }
  }

  static void checkOfflineAfter(CommandSpec spec, Duration offlineAfter) {
    String problem = PoolBoard.offlineAfterProblem(offlineAfter);
    if (problem != null) {
      throw new ParameterException(spec.commandLine(), "--offline-after: " + problem);
    }
  }

  static PoolBoard board(CliDatabase db) {
    return new PoolBoard(
        new PoolStore(db.dataSource), new OperatorLog(db.dataSource), db.clock::millis);
  }

  /**
   * Prints what {@code change} did to {@code what}; exit 0, or FAILED for no such pool/endpoint.
   */
  static int outcome(Change change, String what, java.io.PrintWriter out) {
    switch (change) {
      case NO_POOL, NO_ENDPOINT ->
          throw new CliFailure(
              ExitCodes.FAILED,
              what + ": no such " + (change == Change.NO_POOL ? "pool" : "endpoint"));
      case FULL ->
          throw new CliFailure(
              ExitCodes.FAILED,
              what
                  + ": refused, at most "
                  + PoolStore.MAX_POOLS
                  + " pools and "
                  + PoolStore.MAX_ENDPOINTS_PER_POOL
                  + " endpoints per pool");
      default -> {
        out.println(what + ": " + change.name().toLowerCase(java.util.Locale.ROOT));
        return ExitCodes.OK;
      }
    }
  }

  static void printEndpoints(List<PoolBoard.EndpointView> endpoints, java.io.PrintWriter out) {
    dev.ax.cli.text.Columns.<PoolBoard.EndpointView>builder()
        .left("endpoint", PoolBoard.EndpointView::url)
        .left("state", PoolBoard.EndpointView::state)
        .left("online", e -> e.online() ? "online" : "offline")
        .right("heartbeat age", e -> Duration.ofMillis(e.ageMs()).toSeconds() + "s")
        .left("registered", e -> Instant.ofEpochMilli(e.registeredAtMs()).toString())
        .build()
        .table(endpoints)
        .print(out, "");
  }
}
