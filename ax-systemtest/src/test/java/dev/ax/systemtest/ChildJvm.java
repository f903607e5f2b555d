package dev.ax.systemtest;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@code main} class in a JVM of its own, on a given class path, with an explicit environment
 * (every inherited {@code AX_*} variable removed first), so that a test can kill it with SIGKILL as
 * a crash would. Its stdout and stderr go to {@code <logDir>/<name>.log}, line by line, through a
 * pump thread that also notes when a given "ready" line first appears: {@link #startToReady} is the
 * time from just before the process was started to that line.
 *
 * <p>Thread-safe: {@link #startToReady}, {@link #kill} and {@link #stop} may be called from any
 * thread.
 */
final class ChildJvm implements AutoCloseable {

  /** Heap of every child JVM: eight or more of them share two cores and the test's memory. */
  static final String MAX_HEAP = "-Xmx256m";

  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  private final String name;
  private final Process process;
  private final long startNanos;
  private final long startedAtMs;
  private final Path log;
  private final CompletableFuture<Ready> ready = new CompletableFuture<>();

  /** When the ready line appeared: {@link System#nanoTime()} and wall-clock time. */
  private record Ready(long nanos, long wallMs) {}

  private ChildJvm(String name, Process process, long startNanos, long startedAtMs, Path log) {
    this.name = name;
    this.process = process;
    this.startNanos = startNanos;
    this.startedAtMs = startedAtMs;
    this.log = log;
  }

  /**
   * @param name names the log file and the pump thread, e.g. the stage's node id
   * @param mainClass the class whose {@code main} runs
   * @param args its arguments
   * @param environment the {@code AX_*} (and other) variables to set
   * @param readyLine a substring of the line that says the process is ready
   * @param classPath the child's class path
   */
  static ChildJvm start(
      String name,
      String mainClass,
      List<String> args,
      Map<String, String> environment,
      String readyLine,
      Path logDir,
      String classPath)
      throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>();
    command.add(java);
    command.add(MAX_HEAP);
    command.add("-XX:+ExitOnOutOfMemoryError");
    // Each child's GC pauses with wall-clock times, beside its log: where a late stretch comes
    // from.
    command.add("-Xlog:gc:file=" + logDir.resolve(name + ".gc.log") + ":time");
    command.add("-cp");
    command.add(classPath);
    command.add(mainClass);
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().keySet().removeIf(key -> key.startsWith("AX_"));
    builder.environment().putAll(environment);
    Path log = Files.createDirectories(logDir).resolve(name + ".log");
    long startNanos = System.nanoTime();
    long startedAtMs = System.currentTimeMillis();
    Process process = builder.start();
    ChildJvm child = new ChildJvm(name, process, startNanos, startedAtMs, log);
    Thread pump = new Thread(() -> child.pump(readyLine), name + "-output");
    pump.setDaemon(true);
    pump.start();
    return child;
  }

  private void pump(String readyLine) {
    try (BufferedReader lines =
            new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        if (!ready.isDone() && line.contains(readyLine)) {
          ready.complete(new Ready(System.nanoTime(), System.currentTimeMillis()));
        }
        out.write(line);
        out.write('\n');
        out.flush();
      }
    } catch (IOException e) {
      ready.completeExceptionally(e);
    }
    ready.completeExceptionally(
        new IllegalStateException(
            name + " ended before it was ready (exit " + exitCode() + "); see " + log));
  }

  private String exitCode() {
    try {
      return process.waitFor(5, TimeUnit.SECONDS) ? String.valueOf(process.exitValue()) : "?";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "?";
    }
  }

  /**
   * Waits until the ready line has appeared and returns the time from the start of the process to
   * it.
   *
   * @throws IllegalStateException if the process ends first or is not ready within {@code timeout}
   */
  Duration startToReady(Duration timeout) throws InterruptedException {
    try {
      return Duration.ofNanos(
          ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS).nanos() - startNanos);
    } catch (ExecutionException e) {
      throw new IllegalStateException(name + " did not become ready", e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException(name + " not ready within " + timeout + "; see " + log, e);
    }
  }

  /** Wall-clock time the process was started at. */
  long startedAtMs() {
    return startedAtMs;
  }

  /** Wall-clock time the ready line appeared at; call after {@link #startToReady}. */
  long readyAtMs() {
    return ready.join().wallMs();
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL (on Linux), and waits until the process is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** SIGTERM, and waits for the process to end (SIGKILL after 30 s). */
  void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      kill();
    }
  }

  /** Kills the process if it still runs. */
  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }

  @Override
  public String toString() {
    return "ChildJvm[" + name + ", pid " + process.pid() + ", log " + log + "]";
  }
}
