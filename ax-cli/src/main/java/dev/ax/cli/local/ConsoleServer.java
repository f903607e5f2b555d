package dev.ax.cli.local;

import dev.ax.api.audit.OperatorLog;
import dev.ax.api.http.ApiBackends;
import dev.ax.api.http.ApiServer;
import dev.ax.api.http.ApiSettings;
import dev.ax.api.kafka.CommandSender;
import dev.ax.api.read.MetricsSummary;
import dev.ax.api.write.DeadLetterActions;
import dev.ax.api.write.SwitchBoard;
import dev.ax.api.write.TaskCommands;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.kafka.Topics;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.SwitchStore;
import dev.ax.deadletter.DeadLetterReplayer;
import dev.ax.deadletter.DeadLetterStore;
import java.net.URI;
import java.util.List;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * The API and console as {@code ax console} and {@code ax up} serve them: an {@link ApiServer} over
 * a database and a broker, with the producers its changes go through, all closed together. Built
 * and closed on one thread; the server's own threads answer requests.
 */
public final class ConsoleServer implements AutoCloseable {

  private final CommandSender sender;
  private final KafkaProducer<String, byte[]> producer;
  private final ApiServer api;
  private final String host;

  private ConsoleServer(
      CommandSender sender, KafkaProducer<String, byte[]> producer, ApiServer api, String host) {
    this.sender = sender;
    this.producer = producer;
    this.api = api;
    this.host = host;
  }

  /**
   * Serves the API and console as {@code settings} say over {@code dataSource} and {@code kafka}.
   *
   * @throws dev.ax.common.config.ConfigException when the address cannot be bound
   */
  public static ConsoleServer start(
      ApiSettings settings,
      List<URI> metricsSources,
      DataSource dataSource,
      LongSupplier clockMs,
      KafkaConnection kafka,
      Topics topics,
      String processName) {
    CommandSender sender = CommandSender.open(kafka, processName);
    KafkaProducer<String, byte[]> producer = null;
    try {
      producer = KafkaClients.producer(kafka, processName + "-replay");
      OperatorLog log = new OperatorLog(dataSource);
      DeadLetterStore letters = new DeadLetterStore(dataSource);
      ApiBackends backends =
          new ApiBackends(
              dataSource,
              new TaskCommands(sender, topics, log, clockMs),
              new DeadLetterActions(
                  letters,
                  new DeadLetterReplayer(letters, new InstanceStore(dataSource), producer, topics),
                  log,
                  clockMs),
              new SwitchBoard(new SwitchStore(dataSource), log, clockMs),
              new MetricsSummary(metricsSources, clockMs));
      String host = settings.host().contains(":") ? "[" + settings.host() + "]" : settings.host();
      return new ConsoleServer(sender, producer, ApiServer.start(settings, backends), host);
    } catch (RuntimeException e) {
      if (producer != null) {
        producer.close();
      }
      sender.close();
      throw e;
    }
  }

  /** Where the console is, e.g. {@code http://127.0.0.1:8480/console/}. */
  public String consoleUrl() {
    return "http://" + host + ":" + api.port() + "/console/";
  }

  /** Where the API is, e.g. {@code http://127.0.0.1:8480/api/v1}. */
  public String apiUrl() {
    return "http://" + host + ":" + api.port() + "/api/v1";
  }

  @Override
  public void close() {
    api.close();
    producer.close();
    sender.close();
  }
}
