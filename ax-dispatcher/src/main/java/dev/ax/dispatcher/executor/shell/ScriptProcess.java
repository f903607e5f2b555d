package dev.ax.dispatcher.executor.shell;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.time.Clock;
import dev.ax.dispatcher.executor.AttemptContext;
import dev.ax.spi.ExecutionContext;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one admitted script process to its end: reads stdout (head) and stderr (tail) on two {@link
 * OutputDrain} threads, each bounded by {@code maxOutputBytes}, waits for the exit until the
 * attempt's deadline, and on an interrupt or a passed deadline kills the whole process tree ({@link
 * ProcessTree}: SIGTERM, {@code killGrace}, SIGKILL) and waits up to {@link #OUTPUT_CLOSE_WAIT} for
 * the output threads. Killing and waiting ignore further interrupts but are bounded: at most {@code
 * killGrace + }{@link ProcessTree#FORCED_EXIT_WAIT}{@code + }{@link #OUTPUT_CLOSE_WAIT}.
 *
 * <p>A script that exits while a process it started in the background still holds its stdout or
 * stderr is not waited for past {@link #OUTPUT_CLOSE_WAIT}: the result is the script's exit code
 * with the output read so far, and a warning is logged.
 *
 * <p>Thread-safe: configuration is immutable and each call owns its process and its two output
 * threads. Never logs arguments, environment or output (they may hold secrets).
 *
 * @param maxOutputBytes bytes kept of each of stdout and stderr
 * @param killGrace time between SIGTERM and SIGKILL when the tree is killed
 * @param clock the clock the attempt's deadline was computed on
 */
public record ScriptProcess(int maxOutputBytes, Duration killGrace, Clock clock) {

  /**
   * How long, once the script has exited or its tree is dead, the runner waits for its output
   * streams to end. Normally they end at once; only a process outside the tree keeps them open.
   */
  public static final Duration OUTPUT_CLOSE_WAIT = Duration.ofSeconds(2);

  private static final Logger log = LoggerFactory.getLogger(ScriptProcess.class);

  /**
   * @throws IllegalArgumentException for a negative size or grace (the config keys' bounds keep
   *     them out; a caller that passes one has a bug)
   */
  public ScriptProcess {
    if (maxOutputBytes < 0) {
      throw new IllegalArgumentException("maxOutputBytes must not be negative: " + maxOutputBytes);
    }
    if (killGrace.isNegative()) {
      throw new IllegalArgumentException("killGrace must not be negative: " + killGrace);
    }
  }

  /**
   * Starts {@code builder} and runs it for at most {@code remainingMs}.
   *
   * @throws InterruptedException if interrupted; the process tree has been killed by then and the
   *     interrupt flag is set again
   * @throws IOException if the process could not be started
   */
  public ScriptRun run(ProcessBuilder builder, ExecutionContext context, long remainingMs)
      throws InterruptedException, IOException {
    Process process = builder.start();
    long pid = process.pid();
    String script = scriptOf(context);
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
      return new ScriptRun(exitCodeAfterKill(process), true, stdout.captured(), stderr.captured());
    }
    try {
      awaitOutput(context, stdout, stderr);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw e;
    }
    return new ScriptRun(process.exitValue(), false, stdout.captured(), stderr.captured());
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
    ProcessTree.Kill kill = new ProcessTree(clock).kill(process.toHandle(), killGrace);
    if (kill.survivors() > 0) {
      log.warn(
          "{} attempt {} {}: {} process(es) of script {} (pid {}) still running after SIGKILL",
          context.instanceId(),
          context.attempt(),
          why,
          kill.survivors(),
          scriptOf(context),
          process.pid());
    } else {
      log.debug(
          "{} attempt {} {}: killed script {} (pid {}): {} process(es) sent SIGTERM, {} SIGKILL",
          context.instanceId(),
          context.attempt(),
          why,
          scriptOf(context),
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
          scriptOf(context));
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

  /** The script the task of {@code context} names (a SHELL task: this executor runs no other). */
  private static String scriptOf(ExecutionContext context) {
    return ((ExecutorSpec.Shell) AttemptContext.of(context).task().executor()).script();
  }
}
