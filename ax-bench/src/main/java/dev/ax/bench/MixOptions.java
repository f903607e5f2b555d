package dev.ax.bench;

import java.time.Duration;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The picocli mixin of {@code ax bench --mix}: the task mix run instead of the measured runs, and
 * its size, seed and duration; it checks them and makes the {@link SeedMix}. Set by picocli and
 * then read by the command, both on the main thread.
 */
final class MixOptions extends BenchMixin {

  @Option(
      names = "--mix",
      paramLabel = "<name>",
      description =
          "Instead of the measured runs, a task mix: 'seed' registers the seeds' load test"
              + " (of every 20 tasks, 8 on second-level cron schedules with periods of 1 to 60 s,"
              + " 9 minute-level, 3 hour-level; expressions shared from small pools), counts"
              + " their firings for --duration against each schedule, reports start lateness per"
              + " class, missed, doubled and early firings, CPU per firing and the ticker's"
              + " batches per firing instant, then deletes the tasks (default: none).")
  private String mix;

  @Option(
      names = "--mix-tasks",
      defaultValue = "20000",
      paramLabel = "<n>",
      description = "Tasks of the --mix (default: ${DEFAULT-VALUE}, the seeds'; at most 200000).")
  private int mixTasks;

  @Option(
      names = "--mix-seed",
      defaultValue = "37",
      paramLabel = "<n>",
      description =
          "Draws the --mix's expressions: the same seed, the same tasks (default:"
              + " ${DEFAULT-VALUE}).")
  private long mixSeed;

  @Option(
      names = "--duration",
      defaultValue = "20m",
      paramLabel = "<duration>",
      description =
          "How long the --mix's firings are counted, from the moment every task is stored"
              + " (default: ${DEFAULT-VALUE}; 10s..1d).")
  private Duration mixDuration;

  /** Whether a mix was asked for. */
  boolean asked() {
    return mix != null;
  }

  /**
   * The mix asked for, checked, or null without {@code --mix}.
   *
   * @throws ParameterException for a mix other than seed or a setting out of range
   */
  SeedMix plan() {
    if (mix == null) {
      return null;
    }
    requireOneOf("--mix", mix, "seed");
    requireInRange("--mix-tasks", mixTasks, 1, SeedMix.MAX_TASKS);
    requireDuration("--duration", mixDuration, SeedMix.MIN_DURATION, SeedMix.MAX_DURATION);
    return new SeedMix(mixTasks, mixDuration, mixSeed);
  }
}
