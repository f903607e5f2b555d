package dev.ax.systemtest;

import dev.ax.embedded.DatabaseCoordinates;
import dev.ax.embedded.junit.AxTestEnv;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A stage's own {@code main} in a JVM of its own, on a test's broker and database, so a test can
 * kill it with SIGKILL as a crash would (no shutdown hook, nothing flushed).
 */
final class StageProcess {

  private StageProcess() {}

  /**
   * A TCP port that was free on the loopback interface a moment ago, for a process's metrics
   * endpoint: another process may take it before the stage binds it, which the test then reports.
   */
  static int freeLoopbackPort() throws IOException {
    try (ServerSocket free = new ServerSocket()) {
      free.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      return free.getLocalPort();
    }
  }

  /**
   * @param mainClass e.g. {@code DispatcherMain.class}
   * @param config further AX_* settings for the process
   * @param args the main's arguments
   */
  static Process start(
      AxTestEnv env, Class<?> mainClass, String nodeId, Map<String, String> config, String... args)
      throws Exception {
    DatabaseCoordinates db = env.database();
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                mainClass.getName()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    Map<String, String> environment = builder.environment();
    environment.keySet().removeIf(key -> key.startsWith("AX_"));
    environment.put("AX_KAFKA_BOOTSTRAP", env.bootstrapServers());
    environment.put("AX_JDBC_URL", db.jdbcUrl());
    environment.put("AX_JDBC_USER", db.user());
    environment.put("AX_JDBC_PASSWORD", db.password());
    environment.put("AX_TOPIC_PREFIX", env.topicPrefix());
    environment.put("AX_NODE_ID", nodeId);
    environment.put("AX_METRICS_BIND", "off");
    environment.putAll(config);
    Path log =
        Files.createDirectories(Path.of("target", "stage-processes")).resolve(nodeId + ".log");
    builder.redirectErrorStream(true).redirectOutput(log.toFile());
    System.out.println("Stage process " + nodeId + " logs to " + log.toAbsolutePath());
    return builder.start();
  }
}
