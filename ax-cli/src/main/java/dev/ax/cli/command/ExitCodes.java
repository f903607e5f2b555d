package dev.ax.cli.command;

/** The exit codes of {@code ax}. */
public final class ExitCodes {

  /** Done, and everything was as expected. */
  public static final int OK = 0;

  /**
   * The command ran but did not get what it expected (a demo task ended differently, a bench run
   * lost or duplicated tasks, a send failed), or something it needed failed to start.
   */
  public static final int FAILED = 1;

  /** The configuration or the command line is wrong; picocli uses 2 for usage errors too. */
  public static final int BAD_CONFIG = 2;

  /** Stopped by Ctrl-C or SIGTERM before it was done (128 + SIGINT). */
  public static final int INTERRUPTED = 130;

  private ExitCodes() {}
}
