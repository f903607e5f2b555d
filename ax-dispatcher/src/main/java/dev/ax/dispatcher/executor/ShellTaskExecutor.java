package dev.ax.dispatcher.executor;

import dev.ax.common.time.Clock;
import dev.ax.common.time.SystemClock;
import dev.ax.dispatcher.executor.shell.Admission;
import dev.ax.dispatcher.executor.shell.CapturedOutput;
import dev.ax.dispatcher.executor.shell.OutputDrain;
import dev.ax.dispatcher.executor.shell.ProcessTree;
import dev.ax.dispatcher.executor.shell.ScriptCommand;
import dev.ax.dispatcher.executor.shell.ScriptDirectory;
import dev.ax.dispatcher.executor.shell.ScriptEnvironment;
import dev.ax.dispatcher.executor.shell.ScriptProcess;
import dev.ax.dispatcher.executor.shell.ScriptRun;
import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import dev.ax.spi.TaskExecutor;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Runs SHELL tasks: a script from one configured directory, started as an argument vector and
 * killed with its whole process tree when its time is up. {@link ScriptCommand} decides what may
 * start, {@link ScriptProcess} runs it; this class checks the configuration and maps a run to a
 * result.
 *
 * <h2>Off unless configured</h2>
 *
 * The executor exists only when a script directory is configured ({@code AX_SHELL_SCRIPT_DIR});
 * {@link #ifConfigured} returns empty for a blank setting, and then SHELL tasks find no executor.
 *
 * <h2>What runs</h2>
 *
 * <ul>
 *   <li>The command is {@code [realPath(directory/script), args...]} through {@link
 *       ProcessBuilder}: never a shell string, never {@code sh -c}. An argument such as {@code ; rm
 *       -rf /}, {@code $(id)} or {@code *} reaches the script as those characters.
 *   <li>Only a script inside the directory, checked by {@link ScriptDirectory} (plain file name,
 *       real path inside the real directory, regular file, executable). The working directory is
 *       the script directory; stdin is {@code /dev/null}.
 *   <li>The environment is built from nothing by {@link ScriptEnvironment}: {@code PATH}, {@code
 *       LANG}, the params as {@code AX_PARAM_<NAME>}, and the attempt's ids and deadline.
 * </ul>
 *
 * Anything that fails those checks is a permanent failure and nothing is started.
 *
 * <h2>Output</h2>
 *
 * stdout and stderr are read concurrently by two daemon threads ({@link OutputDrain}), kept
 * separate so stderr can explain a failure. Each keeps at most {@code maxOutputBytes}: stdout its
 * first bytes, stderr its last (where a script says what went wrong). Bytes past the bound are read
 * and dropped, so the script never blocks on a full pipe. Exit 0 is success; any other exit is a
 * (retryable) failure {@code "exit code N: <end of stderr>"}, with the excerpt at most {@link
 * #MAX_ERROR_EXCERPT_CHARS} characters on one line. {@link #run} returns the captured output; the
 * {@link TaskExecutor} result's error carries only the excerpt, and its output ({@link #output})
 * the exit code with the start of stdout and the end of stderr, each at most {@link
 * #OUTPUT_SECTION_CHARS} characters, which AX masks and stores with the attempt.
 *
 * <h2>Time is up</h2>
 *
 * The calling worker waits in {@code process.waitFor(until the deadline)}. When AX's watchdog
 * interrupts it, or the deadline passes first, the whole process tree is killed ({@link
 * ProcessTree}: SIGTERM, {@code killGrace}, SIGKILL), then the executor waits up to {@link
 * #OUTPUT_CLOSE_WAIT} for the output threads to reach the end of their streams. An interrupt is
 * then rethrown as {@link InterruptedException} with the thread's interrupt flag set again (AX
 * records TIMEOUT); a passed deadline is returned as a failure saying so. Killing and waiting
 * ignore further interrupts but are bounded: at most {@code killGrace + }{@link
 * ProcessTree#FORCED_EXIT_WAIT}{@code + }{@link ScriptProcess#OUTPUT_CLOSE_WAIT}.
 *
 * <p>A script that exits while a process it started in the background still holds its stdout or
 * stderr is not waited for past {@link ScriptProcess#OUTPUT_CLOSE_WAIT}: the result is the script's
 * exit code with the output read so far, and a warning is logged. Such a process has left the tree
 * (its parent is gone) and is not killed; its output thread ends when it does.
 *
 * <h2>Thread safety</h2>
 *
 * Thread-safe: configuration is immutable and each call owns its process and its two output
 * threads, so any number of workers may call {@link #execute} at once. Each running script costs
 * one process and two threads; the dispatcher's worker pool bounds how many run.
 *
 * <h2>Secrets</h2>
 *
 * Params may hold secrets, and arguments may too: neither, nor the environment, nor the script's
 * output is ever logged. Error messages name params, never their values.
 */
public final class ShellTaskExecutor implements TaskExecutor {

  public static final String NAME = "shell";

  /** A default for {@code AX_SHELL_MAX_OUTPUT}: bytes kept of each of stdout and stderr. */
  public static final int DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;

  /** A default for the time between SIGTERM and SIGKILL. */
  public static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(5);

  /** Characters of stderr in a failure's error message, like the HTTP executor's default. */
  public static final int MAX_ERROR_EXCERPT_CHARS = 512;

  /** Characters of each of stdout (its start) and stderr (its end) in a run's output. */
  public static final int OUTPUT_SECTION_CHARS = 2000;

  private final ScriptCommand command;
  private final ScriptProcess process;
  private final int maxOutputBytes;
  private final Clock clock;

  /** An executor on the system clock. */
  public ShellTaskExecutor(Path scriptDirectory, int maxOutputBytes, Duration killGrace) {
    this(scriptDirectory, maxOutputBytes, killGrace, new SystemClock());
  }

  /**
   * @param scriptDirectory the only directory scripts run from; must exist
   * @param maxOutputBytes bytes kept of each of stdout and stderr, 0 or more
   * @param killGrace time between SIGTERM and SIGKILL when a tree is killed, 0 or more
   * @param clock the clock the attempt's deadline was computed on (the stage's clock)
   * @throws IllegalArgumentException if the directory does not exist or a bound is negative
   */
  public ShellTaskExecutor(
      Path scriptDirectory, int maxOutputBytes, Duration killGrace, Clock clock) {
    Objects.requireNonNull(scriptDirectory, "scriptDirectory");
    Objects.requireNonNull(killGrace, "killGrace");
    Objects.requireNonNull(clock, "clock");
    if (maxOutputBytes < 0) {
      throw new IllegalArgumentException("maxOutputBytes must not be negative: " + maxOutputBytes);
    }
    if (killGrace.isNegative()) {
      throw new IllegalArgumentException("killGrace must not be negative: " + killGrace);
    }
    this.command = new ScriptCommand(scriptDirectory);
    this.process = new ScriptProcess(maxOutputBytes, killGrace, clock);
    this.maxOutputBytes = maxOutputBytes;
    this.clock = clock;
  }

  /**
   * The executor for {@code scriptDirectory}, or empty when it is null or blank: shell tasks are
   * disabled unless a directory is configured.
   *
   * @throws IllegalArgumentException if a directory is configured but unusable
   */
  public static Optional<ShellTaskExecutor> ifConfigured(
      String scriptDirectory, int maxOutputBytes, Duration killGrace, Clock clock) {
    if (scriptDirectory == null || scriptDirectory.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(
        new ShellTaskExecutor(Path.of(scriptDirectory.trim()), maxOutputBytes, killGrace, clock));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ExecutionResult execute(ExecutionContext context) throws InterruptedException {
    Admission<ScriptRun> admission;
    try {
      admission = run(context);
    } catch (IOException e) {
      // The directory vanished, or exec failed (bad interpreter line, out of processes): the
      // message names the script path, never arguments or environment.
      return ExecutionResult.failure("script could not start: " + e.getMessage());
    }
    if (admission instanceof Admission.Refused<ScriptRun> refused) {
      return ExecutionResult.permanentFailure(refused.reason());
    }
    ScriptRun run = ((Admission.Admitted<ScriptRun>) admission).value();
    // Masked before the streams are cut, so that no secret is cut in two and half kept.
    OutputMask mask = OutputMask.of(context.params(), Map.of(), List.of());
    if (run.timedOut()) {
      return ExecutionResult.failure(
              run.exitCode() < 0
                  ? "timed out: the deadline passed before the script started"
                  : "timed out at the deadline; the script's process tree was killed")
          .withOutput(run.exitCode() < 0 ? null : output(run, mask));
    }
    if (run.exitCode() == 0) {
      return ExecutionResult.ok(output(run, mask));
    }
    String excerpt = errorExcerpt(run.stderr());
    return ExecutionResult.failure(
            "exit code " + run.exitCode() + (excerpt.isEmpty() ? "" : ": " + excerpt))
        .withOutput(output(run, mask));
  }

  /**
   * What a run said: {@code exit code N}, then {@code stdout:} with its first {@link
   * #OUTPUT_SECTION_CHARS} characters and {@code stderr:} with its last, each only when the script
   * wrote to it; a section cut says so.
   */
  static String output(ScriptRun run) {
    return output(run, OutputMask.patternsOnly());
  }

  /** As {@link #output(ScriptRun)}, each stream masked by {@code mask} before it is cut. */
  static String output(ScriptRun run, OutputMask mask) {
    StringBuilder text = new StringBuilder("exit code ").append(run.exitCode());
    String stdout = mask.apply(run.stdout().text());
    if (!stdout.isEmpty()) {
      boolean cut = run.stdout().truncated() || stdout.length() > OUTPUT_SECTION_CHARS;
      text.append("\nstdout:\n")
          .append(stdout, 0, Math.min(stdout.length(), OUTPUT_SECTION_CHARS))
          .append(cut ? "\n… (stdout cut)" : "");
    }
    String stderr = mask.apply(run.stderr().text());
    if (!stderr.isEmpty()) {
      boolean cut = run.stderr().truncated() || stderr.length() > OUTPUT_SECTION_CHARS;
      text.append("\nstderr:\n")
          .append(cut ? "(stderr cut) …\n" : "")
          .append(stderr, Math.max(0, stderr.length() - OUTPUT_SECTION_CHARS), stderr.length());
    }
    return text.toString();
  }

  /**
   * Runs the script of {@code context} to its end and returns what it did, or the refusal if it may
   * not run. {@link #execute} is this plus the mapping to a result.
   *
   * @throws InterruptedException if interrupted; the process tree has been killed by then and the
   *     interrupt flag is set again
   * @throws IOException if the script directory is gone or the process could not be started
   */
  public Admission<ScriptRun> run(ExecutionContext context)
      throws InterruptedException, IOException {
    Admission<ProcessBuilder> launch = command.prepare(context);
    if (launch instanceof Admission.Refused<ProcessBuilder> refused) {
      return refused.retyped();
    }
    ProcessBuilder builder = ((Admission.Admitted<ProcessBuilder>) launch).value();
    if (Thread.currentThread().isInterrupted()) {
      throw new InterruptedException("interrupted before the script started");
    }
    long remainingMs = context.deadline().toEpochMilli() - clock.millis();
    if (remainingMs <= 0) {
      return Admission.admitted(ScriptRun.deadlinePassedBeforeStart());
    }
    return Admission.admitted(process.run(builder, context, remainingMs));
  }

  /** The end of stderr on one line, at most {@link #MAX_ERROR_EXCERPT_CHARS} characters. */
  static String errorExcerpt(CapturedOutput stderr) {
    String text = stderr.text().replaceAll("\\s+", " ").trim();
    boolean cut = stderr.truncated();
    if (text.length() > MAX_ERROR_EXCERPT_CHARS) {
      int from = text.length() - MAX_ERROR_EXCERPT_CHARS;
      if (Character.isLowSurrogate(text.charAt(from))) {
        from++; // do not start with half a character
      }
      text = text.substring(from).trim();
      cut = true;
    }
    if (cut) {
      // A tail cut mid-character decodes to U+FFFD at the start: drop it.
      int from = 0;
      while (from < text.length() && text.charAt(from) == '\uFFFD') {
        from++;
      }
      text = "…" + text.substring(from).trim();
    }
    return text.equals("…") ? "" : text;
  }

  @Override
  public String toString() {
    return "ShellTaskExecutor[" + command + ", maxOutputBytes=" + maxOutputBytes + "]";
  }
}
