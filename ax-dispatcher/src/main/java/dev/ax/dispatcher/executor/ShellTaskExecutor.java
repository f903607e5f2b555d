package dev.ax.dispatcher.executor;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SystemClock;
import dev.ax.dispatcher.executor.shell.Admission;
import dev.ax.dispatcher.executor.shell.CapturedOutput;
import dev.ax.dispatcher.executor.shell.OutputDrain;
import dev.ax.dispatcher.executor.shell.ProcessTree;
import dev.ax.dispatcher.executor.shell.ScriptDirectory;
import dev.ax.dispatcher.executor.shell.ScriptEnvironment;
import dev.ax.dispatcher.executor.shell.ScriptRun;
import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import dev.ax.spi.TaskExecutor;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs SHELL tasks: a script from one configured directory, started as an argument vector and
 * killed with its whole process tree when its time is up.
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
 * {@link TaskExecutor} result carries only the excerpt.
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
 * ProcessTree#FORCED_EXIT_WAIT}{@code + }{@link #OUTPUT_CLOSE_WAIT}.
 *
 * <p>A script that exits while a process it started in the background still holds its stdout or
 * stderr is not waited for past {@link #OUTPUT_CLOSE_WAIT}: the result is the script's exit code
 * with the output read so far, and a warning is logged. Such a process has left the tree (its
 * parent is gone) and is not killed; its output thread ends when it does.
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

  /**
   * How long, once the script has exited or its tree is dead, the executor waits for its output
   * streams to end. Normally they end at once; only a process outside the tree keeps them open.
   */
  public static final Duration OUTPUT_CLOSE_WAIT = Duration.ofSeconds(2);

  private static final Logger log = LoggerFactory.getLogger(ShellTaskExecutor.class);
  private static final File NO_INPUT = new File("/dev/null");

  private final ScriptDirectory directory;
  private final int maxOutputBytes;
  private final Duration killGrace;
  private final Clock clock;
  private final ProcessTree processTree;

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
    this.directory = new ScriptDirectory(scriptDirectory);
    this.maxOutputBytes = maxOutputBytes;
    this.killGrace = killGrace;
    this.clock = clock;
    this.processTree = new ProcessTree(clock);
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
    if (run.timedOut()) {
      return ExecutionResult.failure(
          run.exitCode() < 0
              ? "timed out: the deadline passed before the script started"
              : "timed out at the deadline; the script's process tree was killed");
    }
    if (run.exitCode() == 0) {
      return ExecutionResult.ok();
    }
    String excerpt = errorExcerpt(run.stderr());
    return ExecutionResult.failure(
        "exit code " + run.exitCode() + (excerpt.isEmpty() ? "" : ": " + excerpt));
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
    Admission<ProcessBuilder> launch = prepare(context);
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

    Process process = builder.start();
    long pid = process.pid();
    String script = AttemptContext.of(context).task().executor().script();
    log.debug(
        "{} attempt {}: script {} started as pid {}",
        context.instanceId(),
        context.attempt(),
        script,
        pid);
    OutputDrain stdout = null;
    OutputDrain stderr = null;
    boolean exited;
    try {
      stdout =
          OutputDrain.start(
              process.getInputStream(),
              OutputDrain.Keep.HEAD,
              maxOutputBytes,
              "ax-shell-stdout-" + pid);
      stderr =
          OutputDrain.start(
              process.getErrorStream(),
              OutputDrain.Keep.TAIL,
              maxOutputBytes,
              "ax-shell-stderr-" + pid);
      exited = process.waitFor(remainingMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      stop(process, context, stdout, stderr, "interrupted");
      Thread.currentThread().interrupt();
      throw e;
    } catch (RuntimeException | Error e) {
      stop(process, context, stdout, stderr, "failed: " + e);
      throw e;
    }
    if (!exited) {
      stop(process, context, stdout, stderr, "deadline passed");
      return Admission.admitted(
          new ScriptRun(exitCodeAfterKill(process), true, stdout.captured(), stderr.captured()));
    }
    try {
      awaitOutput(context, stdout, stderr);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw e;
    }
    return Admission.admitted(
        new ScriptRun(process.exitValue(), false, stdout.captured(), stderr.captured()));
  }

  /** The process to start, or why the task may not run. Starts nothing. */
  private Admission<ProcessBuilder> prepare(ExecutionContext context) throws IOException {
    ExecutorSpec spec = AttemptContext.of(context).task().executor();
    Admission<ScriptDirectory.Script> script = directory.resolve(spec.script());
    if (script instanceof Admission.Refused<ScriptDirectory.Script> refused) {
      return refused.retyped();
    }
    ScriptDirectory.Script found = ((Admission.Admitted<ScriptDirectory.Script>) script).value();
    List<String> command = new ArrayList<>(1 + spec.args().size());
    command.add(found.file().toString());
    for (int i = 0; i < spec.args().size(); i++) {
      String arg = spec.args().get(i);
      if (arg == null || arg.indexOf('\0') >= 0) {
        // The JDK would refuse it at start, with the argument in the message.
        return Admission.refused(
            "argument " + (i + 1) + " is null or contains a NUL character, which exec cannot pass");
      }
      command.add(arg);
    }
    Admission<Map<String, String>> environment = ScriptEnvironment.forAttempt(context);
    if (environment instanceof Admission.Refused<Map<String, String>> refused) {
      return refused.retyped();
    }
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(found.directory().toFile())
            .redirectInput(ProcessBuilder.Redirect.from(NO_INPUT));
    Map<String, String> env = builder.environment();
    env.clear(); // starts as a copy of the dispatcher's environment, which holds its secrets
    env.putAll(((Admission.Admitted<Map<String, String>>) environment).value());
    return Admission.admitted(builder);
  }

  /**
   * Kills the tree and waits, within bounds, for the output threads. Ignores interrupts while it
   * waits and restores the flag if one came; never throws.
   */
  private void stop(
      Process process,
      ExecutionContext context,
      OutputDrain stdout,
      OutputDrain stderr,
      String why) {
    ProcessTree.Kill kill = processTree.kill(process.toHandle(), killGrace);
    if (kill.survivors() > 0) {
      log.warn(
          "{} attempt {} {}: {} process(es) of script {} (pid {}) still running after SIGKILL",
          context.instanceId(),
          context.attempt(),
          why,
          kill.survivors(),
          AttemptContext.of(context).task().executor().script(),
          process.pid());
    } else {
      log.debug(
          "{} attempt {} {}: killed script {} (pid {}): {} process(es) sent SIGTERM, {} SIGKILL",
          context.instanceId(),
          context.attempt(),
          why,
          AttemptContext.of(context).task().executor().script(),
          process.pid(),
          kill.terminated(),
          kill.forced());
    }
    boolean interrupted = Thread.interrupted();
    try {
      while (true) {
        try {
          awaitOutput(context, stdout, stderr);
          return;
        } catch (InterruptedException e) {
          interrupted = true; // bounded wait: finish it, then pass the interrupt on
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Waits up to {@link #OUTPUT_CLOSE_WAIT} for both output threads to reach the end of their
   * streams; if one does not, a process outside the tree holds it: warn and go on with what was
   * read. Null drains (never started) are skipped.
   */
  private void awaitOutput(ExecutionContext context, OutputDrain stdout, OutputDrain stderr)
      throws InterruptedException {
    long deadlineMs = clock.millis() + OUTPUT_CLOSE_WAIT.toMillis();
    boolean closed = true;
    for (OutputDrain drain : new OutputDrain[] {stdout, stderr}) {
      if (drain != null && !drain.isClosed()) {
        long leftMs = Math.max(0, deadlineMs - clock.millis());
        closed &= drain.awaitClosed(Duration.ofMillis(leftMs));
      }
    }
    if (!closed) {
      log.warn(
          "{} attempt {}: script {} ended but a process it started still holds its output;"
              + " not waiting for it",
          context.instanceId(),
          context.attempt(),
          AttemptContext.of(context).task().executor().script());
    }
  }

  /**
   * The exit code of a process the tree kill ended. Waits for the JDK to collect it: the kernel may
   * report the process gone a moment before the JDK's reaper thread has read its exit status.
   */
  private static int exitCodeAfterKill(Process process) {
    try {
      if (process.waitFor(ProcessTree.FORCED_EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        return process.exitValue();
      }
      return -1; // survived SIGKILL (already warned about)
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return process.isAlive() ? -1 : process.exitValue();
    }
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
    return "ShellTaskExecutor[" + directory + ", maxOutputBytes=" + maxOutputBytes + "]";
  }
}
