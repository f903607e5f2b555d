package dev.ax.cli.command;

import dev.ax.api.http.ApiSettings;
import dev.ax.cli.local.ConfigCheck;
import dev.ax.cli.local.ConsoleServer;
import dev.ax.cli.local.Infrastructure;
import dev.ax.cli.local.Pipeline;
import dev.ax.cli.local.StopSignal;
import dev.ax.cli.local.UpEnvFile;
import dev.ax.cli.local.WorkDirLock;
import dev.ax.common.config.AxConfig;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.kafka.Topics;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Command;

/**
 * {@code ax up}: every stage in this JVM, on embedded Kafka and MariaDB (kept in the work directory
 * across restarts) unless {@code AX_KAFKA_BOOTSTRAP} and {@code AX_JDBC_URL} name servers. Runs
 * until SIGINT or SIGTERM, then stops the stages (dispatcher first), the runtime and the servers,
 * and exits 0. Runs on the main thread.
 */
@Command(
    name = "up",
    description = {
      "Run every stage (ingest, ticker, retry, dead-letter, resolver, dispatcher) in this JVM until Ctrl-C or SIGTERM.",
      "Starts an embedded Kafka and MariaDB under the work directory (their data survives"
          + " restarts) unless AX_KAFKA_BOOTSTRAP and AX_JDBC_URL are set.",
      "Writes <work-dir>/up.env so that `ax submit` finds the broker."
    })
public final class UpCommand extends WorkDirCommand {

  private static final String PROCESS_NAME = "ax";

  @Override
  @SuppressWarnings("try") // resources held open for the command's lifetime, closed in order
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    Path dir = workDir.workDir();
    CommonConfig base = ConfigCheck.commonFromEnvironment();
    StopSignal stop = StopSignal.install(System.err);
    try (WorkDirLock lock = WorkDirLock.acquire(dir);
        Infrastructure servers = Infrastructure.resolve(base, dir)) {
      AxConfig config = AxConfig.fromEnvironment(servers.overrides());
      CommonConfig common = CommonConfig.from(config);
      Topics topics = new Topics(common.topicPrefix());
      Optional<ApiSettings> consoleSettings = ApiSettings.from(config);
      try (Pipeline pipeline = Pipeline.start(config, PROCESS_NAME);
          CompletionPrinter printer =
              CompletionPrinter.start(servers.kafka(), topics.completed(), out);
          ConsoleServer console =
              consoleSettings
                  .map(
                      settings ->
                          ConsoleServer.start(
                              settings,
                              ApiSettings.metricsSources(config),
                              pipeline.context().dataSource(),
                              pipeline.context().clock()::millis,
                              servers.kafka(),
                              topics,
                              PROCESS_NAME + "-console"))
                  .orElse(null)) {
        UpEnvFile.write(
            dir,
            servers.isEmbedded()
                ? new UpEnvFile.Contents(
                    servers.bootstrapServers(),
                    topics.prefix(),
                    common.jdbcUrl(),
                    common.jdbcUser())
                : new UpEnvFile.Contents(servers.bootstrapServers(), topics.prefix()));
        try {
          out.println(readyLine(servers, common, topics));
          if (console != null) {
            out.println("Console: " + console.consoleUrl() + "  API: " + console.apiUrl());
          }
          out.println(
              "Try: ./ax submit --task-id hello --delay 2s --handler noop   (Ctrl-C stops AX)");
          out.flush();
          stop.await();
          out.println("Stopping AX...");
          out.flush();
        } finally {
          UpEnvFile.delete(dir);
        }
      }
    }
    out.println("AX stopped.");
    out.flush();
    return ExitCodes.OK;
  }

  private static String readyLine(Infrastructure servers, CommonConfig config, Topics topics) {
    return "AX is up: Kafka "
        + servers.bootstrapServers()
        + (servers.isEmbedded() ? " (embedded)" : "")
        + ", database "
        + servers.displayJdbcUrl()
        + ", metrics "
        + metricsUrl(config.metricsBind())
        + ", send commands to topic "
        + topics.commands();
  }

  private static String metricsUrl(String bind) {
    if (bind.equalsIgnoreCase("off")) {
      return "off";
    }
    if (bind.endsWith(":0")) {
      return "on a free port (see the 'Metrics at' log line)";
    }
    return "http://" + bind + "/metrics";
  }
}
