package dev.ax.cli.command;

import dev.ax.api.write.PoolBoard;
import dev.ax.common.store.PoolStore.Change;
import picocli.CommandLine.Command;

/**
 * {@code ax pool register <name> <url>}: Register an endpoint (it stays online while it
 * heartbeats).
 */
@Command(
    name = "register",
    description = "Register an endpoint (it stays online while it heartbeats).")
final class PoolRegisterCommand extends PoolEndpointChange {

  @Override
  String action() {
    return "register";
  }

  @Override
  Change change(PoolBoard board, String pool, String url, String actor, String reason) {
    return board.heartbeat(pool, url, actor, reason);
  }
}
