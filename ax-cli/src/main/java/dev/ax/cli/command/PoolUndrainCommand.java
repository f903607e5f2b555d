package dev.ax.cli.command;

import dev.ax.api.write.PoolBoard;
import dev.ax.common.store.PoolStore.Change;
import picocli.CommandLine.Command;

/** {@code ax pool undrain <name> <url>}: Undrain an endpoint, so it gets new runs again. */
@Command(name = "undrain", description = "Undrain an endpoint, so it gets new runs again.")
final class PoolUndrainCommand extends PoolEndpointChange {

  @Override
  String action() {
    return "undrain";
  }

  @Override
  Change change(PoolBoard board, String pool, String url, String actor, String reason) {
    return board.undrain(pool, url, actor, reason);
  }
}
