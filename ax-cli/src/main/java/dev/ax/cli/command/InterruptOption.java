package dev.ax.cli.command;

import picocli.CommandLine.Option;

/** {@code --interrupt} of {@code ax task cancel|delete}. Filled by picocli on the main thread. */
final class InterruptOption {

  @Option(
      names = "--interrupt",
      description =
          "Also cancel a running attempt: its dispatcher interrupts it at its next lease renewal"
              + " (within a third of AX_DISPATCHER_LEASE); its outcome is not recorded.")
  boolean interrupt;
}
