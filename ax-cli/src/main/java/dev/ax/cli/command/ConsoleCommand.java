package dev.ax.cli.command;

import dev.ax.api.audit.OperatorLog;
import dev.ax.api.http.ApiBackends;
import dev.ax.api.http.ApiServer;
import dev.ax.api.http.ApiSettings;
import dev.ax.api.kafka.CommandSender;
import dev.ax.api.write.DeadLetterActions;
import dev.ax.api.write.SwitchBoard;
import dev.ax.api.write.TaskCommands;
import dev.ax.cli.local.StopSignal;
import dev.ax.common.config.AxConfig;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.Topics;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.SwitchStore;
import dev.ax.deadletter.DeadLetterReplayer;
import dev.ax.deadletter.DeadLetterStore;
import java.io.PrintWriter;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import picocli.CommandLine.Command;

/**
 * {@code ax console}: serves the HTTP API ({@code /api/v1}) over the database and broker of {@code
 * AX_JDBC_URL} / {@code AX_KAFKA_BOOTSTRAP} or of the {@code ax up} in the work directory, at
 * {@code AX_CONSOLE_BIND}, until SIGINT or SIGTERM. Runs on the main thread; requests are served by
 * the API's own threads.
 */
@Command(
    name = "console",
    description =
        "Serve the HTTP API (/api/v1, OpenAPI at /api/v1/openapi.json) at AX_CONSOLE_BIND"
            + " (loopback by default; elsewhere AX_CONSOLE_TOKENS_FILE is required) until stopped.")
public final class ConsoleCommand extends WorkDirCommand {

  static final String PROCESS_NAME = "ax-console";

  @Override
  public Integer call() throws Exception {
    ApiSettings settings = ApiSettings.from(AxConfig.fromEnvironment(Map.of()));
    return CliDatabase.run(spec, workDir, PROCESS_NAME, (db, out) -> serve(db, out, settings));
  }

  private int serve(CliDatabase db, PrintWriter out, ApiSettings settings)
      throws InterruptedException {
    BrokerLocator.Target broker = workDir.locateBroker(db.config);
    StopSignal stop = StopSignal.install(System.err);
    Topics topics = new Topics(broker.topicPrefix());
    OperatorLog operatorLog = new OperatorLog(db.dataSource);
    DeadLetterStore letters = new DeadLetterStore(db.dataSource);
    try (CommandSender sender = CommandSender.open(broker.kafka(), PROCESS_NAME);
        KafkaProducer<String, byte[]> producer =
            KafkaClients.producer(broker.kafka(), PROCESS_NAME + "-replay")) {
      ApiBackends backends =
          new ApiBackends(
              db.dataSource,
              new TaskCommands(sender, topics, operatorLog, db.clock::millis),
              new DeadLetterActions(
                  letters,
                  new DeadLetterReplayer(
                      letters, new InstanceStore(db.dataSource), producer, topics),
                  operatorLog,
                  db.clock::millis),
              new SwitchBoard(new SwitchStore(db.dataSource), operatorLog, db.clock::millis));
      try (ApiServer api = ApiServer.start(settings, backends)) {
        String host = settings.host().contains(":") ? "[" + settings.host() + "]" : settings.host();
        out.println("AX API at http://" + host + ":" + api.port() + "/api/v1 (Ctrl-C stops it)");
        out.flush();
        stop.await();
      }
    }
    return ExitCodes.OK;
  }
}
