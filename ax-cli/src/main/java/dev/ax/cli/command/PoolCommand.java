package dev.ax.cli.command;

import picocli.CommandLine.Command;

/**
 * {@code ax pool}: executor pools of HTTP endpoints, named by tasks instead of a URL ({@code
 * "pool": "<name>"}). Each subcommand works on the database, or through the API when {@code
 * AX_API_URL} is set; each change is audited. Runs on the main thread.
 */
@Command(
    name = "pool",
    description = {
      "Executor pools: named sets of HTTP endpoints a task calls instead of one URL.",
      "Endpoints register themselves with a heartbeat (POST /api/v1/pools/<name>/heartbeat) and"
          + " go offline after the pool's silence; a run whose endpoint cannot be connected to"
          + " goes to the next live one within the same attempt."
    },
    subcommands = {
      PoolCreateCommand.class,
      PoolListCommand.class,
      PoolShowCommand.class,
      PoolRegisterCommand.class,
      PoolDrainCommand.class,
      PoolUndrainCommand.class,
      PoolRemoveCommand.class
    })
public final class PoolCommand extends DatabaseCommandGroup {

  static final String PROCESS_NAME = "ax-pool";

  public PoolCommand() {
    super(PROCESS_NAME, "create, list, show, register, drain, undrain, remove");
  }
}
