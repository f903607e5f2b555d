package dev.ax.bench;

import java.time.Duration;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The picocli mixin of {@code ax bench --soak}: the steady load run instead of the measured runs,
 * its rate and the window its figures are per; it checks them and makes the {@link SoakPlan}. Set
 * by picocli and then read by the command, both on the main thread.
 */
final class SoakOptions extends BenchMixin {

  @Option(
      names = "--soak",
      paramLabel = "<duration>",
      description =
          "Instead of the measured runs, a soak: ONCE tasks at --rate for this long (10s..1d),"
              + " each due --due-in after its send slot; per --soak-window: start lateness, lost,"
              + " duplicated and early tasks, live heap (after a full GC), resident sets and table sizes; a"
              + " verdict line at the end (default: none).")
  private Duration soak;

  @Option(
      names = "--rate",
      defaultValue = "2000",
      paramLabel = "<tasks/s>",
      description = "The --soak's steady rate (default: ${DEFAULT-VALUE}; 1..20000).")
  private int soakRate;

  @Option(
      names = "--soak-window",
      defaultValue = "5m",
      paramLabel = "<duration>",
      description =
          "The --soak's figures are per window of this long (default: ${DEFAULT-VALUE}, or"
              + " the whole soak if shorter; 10s..the soak's duration).")
  private Duration soakWindow;

  /** Whether a soak was asked for. */
  boolean asked() {
    return soak != null;
  }

  /**
   * The soak asked for, checked, its tasks each due {@code dueIn} after its send slot; null without
   * {@code --soak}.
   *
   * @throws ParameterException for a setting out of range
   */
  SoakPlan plan(Duration dueIn) {
    if (soak == null) {
      return null;
    }
    requireDuration("--soak", soak, SoakPlan.MIN_DURATION, SoakPlan.MAX_DURATION);
    requireInRange("--rate", soakRate, 1, SoakPlan.MAX_RATE);
    if (!command().commandLine().getParseResult().hasMatchedOption("--soak-window")
        && soakWindow.compareTo(soak) > 0) {
      soakWindow = soak; // the default window, for a soak shorter than it: one window
    }
    requireDuration("--soak-window", soakWindow, SoakPlan.MIN_WINDOW, soak);
    return new SoakPlan(soak, soakRate, soakWindow, dueIn);
  }
}
