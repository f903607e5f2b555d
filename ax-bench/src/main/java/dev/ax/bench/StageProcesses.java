package dev.ax.bench;

import dev.ax.common.config.CommonConfig;
import dev.ax.common.config.CommonKeys;
import dev.ax.common.stage.StageContext;
import dev.ax.common.stage.StageRuntime;
import dev.ax.deadletter.DeadLetterMain;
import dev.ax.dispatcher.DispatcherMain;
import dev.ax.ingest.IngestMain;
import dev.ax.resolver.ResolverKeys;
import dev.ax.resolver.ResolverMain;
import dev.ax.retry.RetryMain;
import dev.ax.ticker.TickerMain;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code ax bench --stages processes}: every stage's own {@code main} in a JVM of its own, as a
 * deployment runs them, on the bench's broker and database. This JVM keeps the broker (when
 * embedded) and a runtime of its own for the bench's reads (clock, database, topics); it runs no
 * stage. Each stage process serves its metrics on a loopback port, which is how the bench waits for
 * it to be ready and reads its transaction timers. Each logs to a file in the bench's directory.
 *
 * <p>Not thread-safe: started and closed by the bench's main thread.
 */
final class StageProcesses implements BenchStages {

  private static final Duration READY_WITHIN = Duration.ofMinutes(2);
  private static final Duration STOP_WITHIN = Duration.ofSeconds(30);
  private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(5);
  private static final String JAVA_OPTIONS = "-Xmx512m";

  /** One stage JVM: what it is, the process, its metrics port and its log. */
  private record Stage(String name, Process process, int metricsPort, Path log) {}

  private final StageRuntime runtime;
  private final List<Stage> stages;
  private final int dispatchers;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

  private StageProcesses(StageRuntime runtime, List<Stage> stages, int dispatchers) {
    this.runtime = runtime;
    this.stages = stages;
    this.dispatchers = dispatchers;
  }

  /**
   * Opens this JVM's runtime, starts ingest, ticker, dead-letter, retry, resolver and {@code
   * dispatchers} dispatchers, each in its own JVM, and waits until every one is ready.
   *
   * @param common this JVM's configuration (the servers as the bench reaches them)
   * @param stageSettings AX_* settings for the stage JVMs over the bench's own environment (the
   *     servers as the stages reach them)
   * @param workDir the bench's own directory (deleted at its end): the resolver keeps its state
   *     there, not in a directory shared with other runs
   * @param logDir where each stage's log goes
   * @throws IllegalStateException if a stage exits or is not ready in time; what started is stopped
   */
  static StageProcesses start(
      CommonConfig common,
      Map<String, String> stageSettings,
      int dispatchers,
      Path workDir,
      Path logDir,
      PrintWriter out)
      throws IOException, InterruptedException {
    Map<String, String> settings = new HashMap<>(stageSettings);
    settings.put(ResolverKeys.STATE_DIR.name(), workDir.resolve("resolver-state").toString());
    StageRuntime runtime = StageRuntime.open(common, "ax-bench");
    List<Stage> started = new ArrayList<>();
    StageProcesses processes = new StageProcesses(runtime, started, dispatchers);
    try {
      Set<Integer> ports = new HashSet<>();
      started.add(launch("ingest", IngestMain.class, settings, logDir, ports));
      started.add(launch("ticker", TickerMain.class, settings, logDir, ports));
      started.add(launch("dead-letter", DeadLetterMain.class, settings, logDir, ports));
      started.add(launch("retry", RetryMain.class, settings, logDir, ports));
      started.add(launch("resolver", ResolverMain.class, settings, logDir, ports));
      for (int n = 1; n <= dispatchers; n++) {
        started.add(launch("dispatcher-" + n, DispatcherMain.class, settings, logDir, ports));
      }
      out.println(
          "Started "
              + started.size()
              + " stage JVMs ("
              + JAVA_OPTIONS
              + " each), their logs in "
              + logDir
              + " (kept after the bench); waiting until each is ready...");
      out.flush();
      for (Stage stage : started) {
        processes.awaitReady(stage);
      }
      return processes;
    } catch (IOException | InterruptedException | RuntimeException e) {
      processes.close();
      throw e;
    }
  }

  private static Stage launch(
      String name, Class<?> main, Map<String, String> settings, Path logDir, Set<Integer> ports)
      throws IOException {
    int port = freeLoopbackPort(ports);
    String java = ProcessHandle.current().info().command().orElse("java");
    ProcessBuilder builder =
        new ProcessBuilder(
            java, JAVA_OPTIONS, "-cp", System.getProperty("java.class.path"), main.getName());
    Map<String, String> environment = builder.environment();
    environment.putAll(settings);
    environment.put(CommonKeys.NODE_ID.name(), "bench-" + name);
    environment.put(CommonKeys.METRICS_BIND.name(), "127.0.0.1:" + port);
    Path log = logDir.resolve(name + ".log");
    builder.redirectErrorStream(true).redirectOutput(log.toFile());
    return new Stage(name, builder.start(), port, log);
  }

  /** A loopback port free a moment ago and not handed to another stage of this bench. */
  private static int freeLoopbackPort(Set<Integer> taken) throws IOException {
    while (true) {
      try (ServerSocket free = new ServerSocket()) {
        free.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        if (taken.add(free.getLocalPort())) {
          return free.getLocalPort();
        }
      }
    }
  }

  private void awaitReady(Stage stage) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    while (System.nanoTime() < deadline) {
      if (!stage.process().isAlive()) {
        throw new IllegalStateException(
            String.format(
                Locale.ROOT,
                "The %s stage exited with %d before it was ready; its log: %s%n%s",
                stage.name(),
                stage.process().exitValue(),
                stage.log(),
                tail(stage.log())));
      }
      if (get(stage, "/health/ready").isPresent()) {
        return;
      }
      // Polling a child process's probe: nothing to wait on but time.
      TimeUnit.MILLISECONDS.sleep(200);
    }
    throw new IllegalStateException(
        "The "
            + stage.name()
            + " stage was not ready within "
            + READY_WITHIN
            + "; its log: "
            + stage.log());
  }

  /** The body of {@code path} on the stage's metrics port if it answers 200, else empty. */
  private Optional<String> get(Stage stage, String path) throws InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + stage.metricsPort() + path))
            .timeout(HTTP_TIMEOUT)
            .build();
    try {
      HttpResponse<String> response =
          http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return response.statusCode() == 200 ? Optional.of(response.body()) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty(); // not listening yet, or gone
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join(
          System.lineSeparator(), lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  @Override
  public StageContext context() {
    return runtime.context();
  }

  @Override
  public List<ProcessHandle> processes() {
    return stages.stream().map(stage -> stage.process().toHandle()).toList();
  }

  /**
   * Summed from the ticker's and the dispatchers' {@code /metrics}; a stage not answering adds 0.
   */
  @Override
  public TransactionTimes transactionTimes() {
    StringBuilder text = new StringBuilder();
    for (Stage stage : stages) {
      if (stage.name().equals("ticker") || stage.name().startsWith("dispatcher")) {
        try {
          get(stage, "/metrics").ifPresent(body -> text.append(body).append('\n'));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    return PrometheusSums.transactionTimes(text.toString());
  }

  @Override
  public String tickerMetrics() {
    for (Stage stage : stages) {
      if (stage.name().equals("ticker")) {
        try {
          return get(stage, "/metrics").orElse("");
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    return "";
  }

  /** The process of the stage named {@code name} ("ticker", "dispatcher-1", ...), if started. */
  Optional<ProcessHandle> process(String name) {
    return stages.stream()
        .filter(stage -> stage.name().equals(name))
        .map(stage -> stage.process().toHandle())
        .findFirst();
  }

  @Override
  public String description() {
    return "each stage in a JVM of its own ("
        + (5 + dispatchers)
        + " JVMs, "
        + dispatchers
        + " dispatcher(s))";
  }

  /** Stops the stage JVMs as an operator would (SIGTERM; each drains), dispatchers first. */
  @Override
  public void close() {
    for (int i = stages.size() - 1; i >= 0; i--) {
      stages.get(i).process().destroy();
    }
    for (Stage stage : stages) {
      try {
        if (!stage.process().waitFor(STOP_WITHIN.toMillis(), TimeUnit.MILLISECONDS)) {
          stage.process().destroyForcibly();
        }
      } catch (InterruptedException e) {
        stage.process().destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
    runtime.close();
  }
}
