package dev.ax.bench;

import dev.ax.cli.local.ConfigCheck;
import dev.ax.cli.local.Infrastructure;
import dev.ax.cli.local.Pipeline;
import dev.ax.cli.local.TempDirs;
import dev.ax.common.config.AxConfig;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.config.CommonKeys;
import dev.ax.embedded.EmbeddedDatabase;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The picocli mixin of where {@code ax bench}'s stages run and how they reach the database: in this
 * JVM or each in its own, how many dispatchers, and the delay a loopback proxy adds to each of
 * their database round trips; it checks them, starts the proxy and the stages. Set by picocli and
 * then read by the command, both on the main thread.
 */
final class StageOptions extends BenchMixin {

  private static final int MAX_DISPATCHERS = 16;
  private static final long MAX_DB_DELAY_MS = 1000;
  private static final int MAX_DB_BUFFER_POOL_MB = 65_536;

  @Option(
      names = "--dispatchers",
      defaultValue = "1",
      paramLabel = "<n>",
      description =
          "Dispatcher stages in the one consumer group, as that many dispatcher processes would be"
              + " (default: ${DEFAULT-VALUE}). Their pools are AX_DISPATCHER_THREADS each.")
  private int dispatchers;

  @Option(
      names = "--stages",
      defaultValue = "in-jvm",
      paramLabel = "<where>",
      description =
          "in-jvm: every stage in this JVM with the embedded broker; processes: each stage's own"
              + " main in a JVM of its own, as a deployment runs them (ingest, ticker, dead-letter,"
              + " retry, resolver and --dispatchers dispatchers) (default: ${DEFAULT-VALUE}).")
  private String stagesWhere;

  @Option(
      names = "--db-delay",
      defaultValue = "0ms",
      paramLabel = "<duration>",
      description =
          "Route the stages (and the peer) to the database through a loopback proxy that holds"
              + " each answer this long, as tc netem delay would on the database's side of a link"
              + " (default: ${DEFAULT-VALUE}: straight to the database; at most "
              + MAX_DB_DELAY_MS
              + "ms).")
  private Duration dbDelay;

  @Option(
      names = "--db-buffer-pool",
      defaultValue = "0",
      paramLabel = "<MiB>",
      description =
          "Start the embedded database with an InnoDB buffer pool of this many MiB"
              + " (default: ${DEFAULT-VALUE}: the server's own, 128 MiB). The seed mix and a soak"
              + " outgrow 128 MiB within minutes, and then index operations read from disk; a"
              + " deployment sizes its pool for the rows it retains (README, sizing). An external"
              + " database is sized by its operator: the option is refused there.")
  private int dbBufferPoolMb;

  /** The delay the database proxy adds to each round trip (zero: no proxy). */
  Duration dbDelay() {
    return dbDelay;
  }

  /**
   * @throws ParameterException for a count of dispatchers out of range
   */
  void checkDispatchers() {
    requireInRange("--dispatchers", dispatchers, 1, MAX_DISPATCHERS);
  }

  /**
   * @throws ParameterException for an unknown place to run the stages or a delay out of range
   */
  void check() {
    requireOneOf("--stages", stagesWhere, "in-jvm", "processes");
    requireInRange("--db-buffer-pool", dbBufferPoolMb, 0, MAX_DB_BUFFER_POOL_MB);
    if (dbDelay.isNegative() || dbDelay.toMillis() > MAX_DB_DELAY_MS) {
      throw usage(
          "--db-delay must be in 0ms.." + MAX_DB_DELAY_MS + "ms: " + dbDelay.toMillis() + "ms");
    }
  }

  /**
   * Sizes the buffer pool of the embedded database the bench is about to start, as {@code
   * --db-buffer-pool} asks (a server setting read at its start).
   *
   * @throws ParameterException when asked for an external database
   */
  void sizeBufferPool(boolean embedded) {
    if (dbBufferPoolMb == 0) {
      return;
    }
    if (!embedded) {
      throw usage(
          "--db-buffer-pool sizes the embedded database only; an external server's"
              + " innodb_buffer_pool_size is its operator's");
    }
    System.setProperty(EmbeddedDatabase.BUFFER_POOL_MB, Integer.toString(dbBufferPoolMb));
  }

  /** The buffer pool asked for, in MiB (0: the server's own). */
  int dbBufferPoolMb() {
    return dbBufferPoolMb;
  }

  /** The database proxy of {@code --db-delay}, or null without one. */
  LatencyProxy startProxy(Infrastructure servers) throws IOException {
    if (dbDelay.isZero()) {
      return null;
    }
    String url = servers.overrides().getOrDefault(CommonKeys.JDBC_URL.name(), "");
    if (url.isEmpty()) {
      url = ConfigCheck.commonFromEnvironment().jdbcUrl();
    }
    JdbcAddress address;
    try {
      address = JdbcAddress.parse(url);
    } catch (IllegalArgumentException e) {
      throw usage("--db-delay cannot proxy the database URL: " + e.getMessage());
    }
    return LatencyProxy.start(address.socketAddress(), dbDelay);
  }

  /**
   * The stages, in this JVM or each in its own, reaching the database as {@code stageConfig} says.
   */
  BenchStages startStages(
      AxConfig stageConfig,
      AxConfig benchConfig,
      Map<String, String> stageSettings,
      Path dir,
      PrintWriter out)
      throws IOException, InterruptedException {
    if (stagesWhere.equals("in-jvm")) {
      return BenchStages.inThisJvm(
          Pipeline.start(stageConfig, BenchCommand.PROCESS_NAME, dispatchers), dispatchers);
    }
    // Not in the bench's directory, which is deleted at the end: a stage's log is how an odd
    // figure is explained afterwards.
    Path logDir = TempDirs.create("ax-bench-stage-logs-");
    return StageProcesses.start(
        CommonConfig.from(benchConfig), stageSettings, dispatchers, dir, logDir, out);
  }
}
