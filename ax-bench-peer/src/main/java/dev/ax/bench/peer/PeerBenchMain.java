package dev.ax.bench.peer;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The peer JVM of {@code ax bench --peer db-scheduler}, started by ax-bench with {@code
 * --key=value} arguments (the database password in {@value #PASSWORD_ENV}, never on the command
 * line). It warms db-scheduler up as the bench warms AX up, prints {@code PEER-READY}, then runs
 * one measured round for each {@code run <runId>} line on stdin and prints its {@code PEER ...}
 * line ({@link PeerOutcome}); {@code quit} or the end of stdin drops the table and exits. Other
 * lines on stdout are progress for the operator. Runs on the main thread.
 */
public final class PeerBenchMain {

  static final String PASSWORD_ENV = "AX_PEER_JDBC_PASSWORD";

  /** The most tasks of one warm-up round, as in ax-bench. */
  private static final int WARM_UP_ROUND_TASKS = 10_000;

  /** A round with JIT compile time under this share of its wall time ends the warm-up. */
  private static final double JIT_SETTLED_SHARE = 0.05;

  private static final Set<String> KEYS =
      Set.of(
          "jdbc-url",
          "jdbc-user",
          "strategy",
          "threads",
          "polling-ms",
          "tasks",
          "due-in-ms",
          "spread-ms",
          "wait-ms",
          "warm-up");

  private PeerBenchMain() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = System.out;
    Map<String, String> options;
    try {
      options = options(args);
    } catch (IllegalArgumentException e) {
      System.err.println("ax-bench-peer: " + e.getMessage());
      System.exit(2);
      return;
    }
    PeerSettings settings =
        PeerSettings.of(
            PeerSettings.Strategy.fromCliName(options.getOrDefault("strategy", "lock-and-fetch")),
            Integer.parseInt(options.getOrDefault("threads", "20")),
            Duration.ofMillis(Long.parseLong(options.getOrDefault("polling-ms", "10"))));
    int tasks = Integer.parseInt(required(options, "tasks"));
    Duration dueIn = Duration.ofMillis(Long.parseLong(required(options, "due-in-ms")));
    Duration spread = Duration.ofMillis(Long.parseLong(required(options, "spread-ms")));
    int warmUp = Integer.parseInt(options.getOrDefault("warm-up", "400000"));
    try (HikariDataSource dataSource =
        dataSource(
            required(options, "jdbc-url"),
            options.getOrDefault("jdbc-user", ""),
            System.getenv().getOrDefault(PASSWORD_ENV, ""),
            settings.poolSize())) {
      PeerTable.create(dataSource);
      PeerRound round =
          new PeerRound(
              dataSource,
              PeerTable.NAME,
              settings,
              Clock.systemUTC(),
              Duration.ofMillis(Long.parseLong(options.getOrDefault("wait-ms", "60000"))));
      warmUp(round, warmUp, out);
      out.println("PEER-READY db-scheduler " + settings.describe());
      out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] words = line.trim().split(" ");
        if (words.length == 2 && words[0].equals("run") && words[1].matches("[a-z0-9-]{1,60}")) {
          out.println(round.run(words[1], tasks, dueIn, spread).line());
        } else if (line.trim().equals("quit")) {
          break;
        } else {
          out.println("PEER-ERROR unknown request: " + line.trim());
        }
        out.flush();
      }
      PeerTable.drop(dataSource);
    }
  }

  /** Unmeasured rounds until the JIT compilers settle, as ax-bench's own warm-up does for AX. */
  private static void warmUp(PeerRound round, int maxTasks, PrintStream out)
      throws InterruptedException {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    boolean measured = jit != null && jit.isCompilationTimeMonitoringSupported();
    int left = maxTasks;
    for (int n = 1; left > 0; n++) {
      int roundTasks = Math.min(WARM_UP_ROUND_TASKS, left);
      left -= roundTasks;
      long compileStartMs = measured ? jit.getTotalCompilationTime() : 0;
      long startNanos = System.nanoTime();
      round.run("w" + n, roundTasks, Duration.ofSeconds(1), Duration.ofSeconds(2));
      long wallMs = Math.max(1, (System.nanoTime() - startNanos) / 1_000_000);
      long compileMs = measured ? jit.getTotalCompilationTime() - compileStartMs : 0;
      out.printf(
          Locale.ROOT,
          "peer warm-up round %d: %d unmeasured tasks in %d ms, JIT compiling for %d ms (%.0f%%)%n",
          n,
          roundTasks,
          wallMs,
          compileMs,
          100.0 * compileMs / wallMs);
      out.flush();
      if (measured && compileMs < wallMs * JIT_SETTLED_SHARE) {
        return;
      }
    }
  }

  private static HikariDataSource dataSource(
      String jdbcUrl, String user, String password, int poolSize) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(poolSize);
    config.setMinimumIdle(poolSize);
    config.setPoolName("ax-bench-peer");
    return new HikariDataSource(config);
  }

  static Map<String, String> options(String[] args) {
    Map<String, String> options = new HashMap<>();
    for (String arg : args) {
      int equals = arg.indexOf('=');
      if (!arg.startsWith("--") || equals < 0) {
        throw new IllegalArgumentException("arguments are --key=value, not '" + arg + "'");
      }
      String key = arg.substring(2, equals);
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException("unknown option --" + key + "; known: " + KEYS);
      }
      options.put(key, arg.substring(equals + 1));
    }
    return options;
  }

  private static String required(Map<String, String> options, String key) {
    String value = options.get(key);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("--" + key + " is required");
    }
    return value;
  }
}
