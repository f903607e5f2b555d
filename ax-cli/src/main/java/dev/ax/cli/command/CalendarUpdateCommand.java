package dev.ax.cli.command;

import picocli.CommandLine.Command;

/**
 * {@code ax calendar update <name> ...}: replaces a calendar's rules with those given (the same
 * options as create); tickers apply the change within 2 s.
 */
@Command(
    name = "update",
    description =
        "Replace an exclusion calendar's rules with those given (as for create); applied within 2 s.")
final class CalendarUpdateCommand extends CalendarCreateCommand {

  @Override
  boolean create() {
    return false;
  }
}
