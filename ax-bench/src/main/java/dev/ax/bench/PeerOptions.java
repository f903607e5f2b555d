package dev.ax.bench;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.CommonConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The picocli mixin of {@code ax bench --peer}: which scheduler the bench compares AX with, and
 * that scheduler's settings; it checks them and starts the peer's JVM. Set by picocli and then read
 * by the command, both on the main thread.
 */
final class PeerOptions extends BenchMixin {

  private static final int MAX_PEER_THREADS = 500;

  @Option(
      names = "--peer",
      paramLabel = "<scheduler>",
      description =
          "Also run each measured run's workload through this scheduler, in a JVM of its own on"
              + " the same database right after AX's run, and print both side by side with the"
              + " ratio. Only db-scheduler (16.7.1) for now.")
  private String peer;

  @Option(
      names = "--peer-strategy",
      defaultValue = "lock-and-fetch",
      paramLabel = "<strategy>",
      description =
          "The peer's polling strategy: lock-and-fetch (SELECT ... FOR UPDATE SKIP LOCKED, the"
              + " throughput setting db-scheduler recommends for MySQL 8 and MariaDB) or fetch"
              + " (default: ${DEFAULT-VALUE}).")
  private String strategy;

  @Option(
      names = "--peer-threads",
      defaultValue = "20",
      paramLabel = "<n>",
      description = "The peer's executor threads (default: ${DEFAULT-VALUE}).")
  private int threads;

  @Option(
      names = "--peer-polling",
      defaultValue = "10ms",
      paramLabel = "<duration>",
      description = "The peer's polling interval (default: ${DEFAULT-VALUE}).")
  private Duration polling;

  /** Whether a peer was asked for. */
  boolean asked() {
    return peer != null;
  }

  /**
   * @throws ParameterException for a peer other than db-scheduler or a setting out of range
   */
  void check() {
    if (peer != null && !peer.equals("db-scheduler")) {
      throw usage("--peer must be db-scheduler (the only peer so far): " + peer);
    }
    requireOneOf("--peer-strategy", strategy, "lock-and-fetch", "fetch");
    requireInRange("--peer-threads", threads, 1, MAX_PEER_THREADS);
    if (polling.isNegative() || polling.isZero()) {
      throw usage("--peer-polling must be positive: " + polling);
    }
  }

  /**
   * Starts the peer JVM on the database {@code config} names; it warms up as AX did before this
   * returns.
   *
   * @param workload the measured runs' tasks, due-in and spread (its run id and start are unused)
   */
  PeerProcess start(
      String classPath,
      AxConfig config,
      BenchPlan workload,
      Duration wait,
      int warmUpTasks,
      PrintWriter out)
      throws IOException {
    CommonConfig common = CommonConfig.from(config);
    out.println();
    out.println("Starting the peer, db-scheduler, in a JVM of its own; it warms up as AX did...");
    out.flush();
    return PeerProcess.start(
        classPath,
        new PeerProcess.Launch(
            strategy,
            threads,
            polling,
            workload,
            wait,
            warmUpTasks,
            common.jdbcUrl(),
            common.jdbcUser()),
        common.jdbcPassword(),
        out);
  }
}
