package dev.ax.dispatcher.executor.shell;

/**
 * How one run of a script ended, as the shell executor saw it.
 *
 * @param exitCode the script's exit status; after a kill, what the kill left ({@code 128 +
 *     signal}), or -1 when the script never started because its deadline had already passed
 * @param timedOut true when the deadline passed and the process tree was killed
 * @param stdout the first bytes the script wrote to stdout, bounded
 * @param stderr the last bytes the script wrote to stderr, bounded
 */
public record ScriptRun(
    int exitCode, boolean timedOut, CapturedOutput stdout, CapturedOutput stderr) {

  /** The deadline passed before the script could start; nothing ran. */
  public static ScriptRun deadlinePassedBeforeStart() {
    return new ScriptRun(-1, true, CapturedOutput.EMPTY, CapturedOutput.EMPTY);
  }
}
