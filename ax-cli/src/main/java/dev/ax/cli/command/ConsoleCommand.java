package dev.ax.cli.command;

import dev.ax.api.http.ApiSettings;
import dev.ax.cli.local.ConsoleServer;
import dev.ax.cli.local.StopSignal;
import dev.ax.common.config.AxConfig;
import dev.ax.common.kafka.Topics;
import java.io.PrintWriter;
import java.net.URI;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;

/**
 * {@code ax console}: serves the HTTP API ({@code /api/v1}) and the console ({@code /console/})
 * over the database and broker of {@code AX_JDBC_URL} / {@code AX_KAFKA_BOOTSTRAP} or of the {@code
 * ax up} in the work directory, at {@code AX_CONSOLE_BIND}, until SIGINT or SIGTERM. Runs on the
 * main thread; requests are served by the API's own threads.
 */
@Command(
    name = "console",
    description =
        "Serve the console (/console/) and the HTTP API (/api/v1, OpenAPI at"
            + " /api/v1/openapi.json) at AX_CONSOLE_BIND (loopback by default; elsewhere"
            + " AX_CONSOLE_TOKENS_FILE is required) until stopped.")
public final class ConsoleCommand extends WorkDirCommand {

  static final String PROCESS_NAME = "ax-console";

  @Override
  public Integer call() throws Exception {
    AxConfig config = AxConfig.fromEnvironment(Map.of());
    List<URI> metrics = ApiSettings.metricsSources(config);
    ApiSettings settings =
        ApiSettings.from(config)
            .orElseThrow(
                () ->
                    new CliFailure(
                        ExitCodes.BAD_CONFIG,
                        "AX_CONSOLE_BIND is off: give the host:port to serve the console at"));
    return CliDatabase.run(
        spec, workDir, PROCESS_NAME, (db, out) -> serve(db, out, settings, metrics));
  }

  private int serve(CliDatabase db, PrintWriter out, ApiSettings settings, List<URI> metrics)
      throws InterruptedException {
    BrokerLocator.Target broker = workDir.locateBroker(db.config);
    StopSignal stop = StopSignal.install(System.err);
    try (ConsoleServer console =
        ConsoleServer.start(
            settings,
            metrics,
            db.dataSource,
            db.clock::millis,
            broker.kafka(),
            new Topics(broker.topicPrefix()),
            PROCESS_NAME)) {
      out.println(
          "AX console at "
              + console.consoleUrl()
              + ", API at "
              + console.apiUrl()
              + " (Ctrl-C stops it)");
      out.flush();
      stop.await();
    }
    return ExitCodes.OK;
  }
}
