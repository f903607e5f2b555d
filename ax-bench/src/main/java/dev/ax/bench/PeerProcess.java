package dev.ax.bench;

import dev.ax.bench.peer.PeerOutcome;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The peer of {@code ax bench --peer db-scheduler}: a JVM of its own running ax-bench-peer's {@code
 * PeerBenchMain} on that module's class path, which is never this JVM's. It gets the database to
 * use and the workload as arguments and the password in its environment, warms up when started, and
 * measures one round per {@link #run} request. Its progress lines are copied to the bench's output.
 * Not thread-safe: used by the bench's main thread.
 */
final class PeerProcess implements AutoCloseable {

  static final String MAIN_CLASS = "dev.ax.bench.peer.PeerBenchMain";

  /** The peer JVM's logging configuration, a resource of ax-bench-peer. */
  static final String LOGGING_RESOURCE = "ax-bench-peer-logback.xml";

  private static final String PASSWORD_ENV = "AX_PEER_JDBC_PASSWORD";
  private static final Duration EXIT_WAIT = Duration.ofSeconds(30);

  /** How the peer is tuned and what it runs: the arguments of {@code PeerBenchMain}. */
  record Launch(
      String strategy,
      int threads,
      Duration pollingInterval,
      BenchPlan workload,
      Duration patience,
      int warmUpTasks,
      String jdbcUrl,
      String jdbcUser) {

    List<String> arguments() {
      return List.of(
          "--jdbc-url=" + jdbcUrl,
          "--jdbc-user=" + jdbcUser,
          "--strategy=" + strategy,
          "--threads=" + threads,
          "--polling-ms=" + pollingInterval.toMillis(),
          "--tasks=" + workload.tasks(),
          "--due-in-ms=" + workload.dueIn().toMillis(),
          "--spread-ms=" + workload.spread().toMillis(),
          "--wait-ms=" + patience.toMillis(),
          "--warm-up=" + warmUpTasks);
    }
  }

  private final Process process;
  private final BufferedReader fromPeer;
  private final Writer toPeer;
  private final PrintWriter out;
  private String description = "";

  private PeerProcess(Process process, PrintWriter out) {
    this.process = process;
    this.out = out;
    this.fromPeer =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.toPeer = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
  }

  /**
   * Starts the peer JVM and waits until it has warmed up.
   *
   * @param classPath the peer JVM's class path ({@link #classPath()})
   * @throws IllegalStateException if the peer fails to start
   */
  static PeerProcess start(String classPath, Launch launch, String jdbcPassword, PrintWriter out)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    // Named, not logback.xml: ax-bench-peer's jar is on ax-bench's class path too (for the PEER
    // line's class), where a second logback.xml would compete with the CLI's.
    command.add("-Dlogback.configurationFile=" + LOGGING_RESOURCE);
    command.add("-cp");
    command.add(classPath);
    command.add(MAIN_CLASS);
    command.addAll(launch.arguments());
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    builder.environment().put(PASSWORD_ENV, jdbcPassword);
    PeerProcess peer = new PeerProcess(builder.start(), out);
    try {
      peer.description = peer.readUntil("PEER-READY ").substring("PEER-READY ".length());
      return peer;
    } catch (IOException | RuntimeException e) {
      peer.close();
      throw e;
    }
  }

  /** What the peer is and how it is tuned, e.g. {@code db-scheduler lock-and-fetch, 20 threads}. */
  String description() {
    return description;
  }

  /** Measures one round of the workload under {@code runId}. */
  PeerOutcome run(String runId) throws IOException {
    toPeer.write("run " + runId + "\n");
    toPeer.flush();
    return PeerOutcome.parse(readUntil("PEER "));
  }

  /** Copies progress lines to the output until one starts with {@code prefix}, and returns it. */
  private String readUntil(String prefix) throws IOException {
    for (String line = fromPeer.readLine(); line != null; line = fromPeer.readLine()) {
      if (line.startsWith(prefix)) {
        return line;
      }
      if (line.startsWith("PEER-ERROR ")) {
        throw new IllegalStateException("the peer refused a request: " + line);
      }
      out.println("  " + line);
      out.flush();
    }
    throw new IllegalStateException(
        "the peer JVM ended"
            + exitCode().map(code -> " with exit code " + code).orElse("")
            + " (its log is on stderr above)");
  }

  private Optional<Integer> exitCode() {
    try {
      return process.waitFor(5, TimeUnit.SECONDS)
          ? Optional.of(process.exitValue())
          : Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** Asks the peer to drop its table and exit; kills it if it has not within 30 s. */
  @Override
  public void close() {
    try {
      toPeer.write("quit\n");
      toPeer.close();
    } catch (IOException e) {
      // The peer is gone already: nothing to ask.
    }
    try {
      if (!process.waitFor(EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The AX checkout this bench runs from: ax-bench's classes are its {@code
   * ax-bench/target/classes}, as the {@code ./ax} script runs them.
   *
   * @throws IllegalStateException when the bench does not run from a checkout
   */
  private static Path home() {
    try {
      Path classes =
          Path.of(BenchCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path module = classes.getParent() == null ? null : classes.getParent().getParent();
      Path home = module == null ? null : module.getParent();
      if (home == null || !Files.isDirectory(home.resolve("ax-bench-peer"))) {
        throw new IllegalStateException(
            "--peer needs an AX checkout with ax-bench-peer built (run it through ./ax); ax-bench"
                + " runs from "
                + classes);
      }
      return home;
    } catch (URISyntaxException | SecurityException e) {
      throw new IllegalStateException("cannot tell where ax-bench runs from", e);
    }
  }

  /**
   * The peer JVM's class path: ax-bench-peer's classes and the jars its build listed, in the AX
   * checkout this bench runs from. Checked before the bench starts anything, so a missing build
   * fails at once, not after AX's warm-up.
   *
   * @throws IllegalStateException when the bench does not run from a checkout or the module is not
   *     built
   */
  static String classPath() throws IOException {
    Path target = home().resolve("ax-bench-peer").resolve("target");
    Path classPathFile = target.resolve("peer-classpath.txt");
    if (!Files.isReadable(classPathFile)) {
      throw new IllegalStateException(
          "ax-bench-peer is not built ("
              + classPathFile
              + " is missing): build AX with mvn install, or run ./ax, which does");
    }
    return target.resolve("classes") + File.pathSeparator + Files.readString(classPathFile).trim();
  }
}
