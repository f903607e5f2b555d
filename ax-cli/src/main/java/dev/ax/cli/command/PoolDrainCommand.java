package dev.ax.cli.command;

import dev.ax.api.write.PoolBoard;
import dev.ax.common.store.PoolStore.Change;
import picocli.CommandLine.Command;

/** {@code ax pool drain <name> <url>}: Drain an endpoint, so it gets no new runs. */
@Command(name = "drain", description = "Drain an endpoint, so it gets no new runs.")
final class PoolDrainCommand extends PoolEndpointChange {

  @Override
  String action() {
    return "drain";
  }

  @Override
  Change change(PoolBoard board, String pool, String url, String actor, String reason) {
    return board.drain(pool, url, actor, reason);
  }
}
