package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import com.sun.net.httpserver.HttpServer;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * The secrets a deployment and its tasks hold never reach what AX writes for others to read: with a
 * signing secret configured, a task whose params and HTTP header carry secrets failing into a dead
 * letter, and a command whose bad header value carries one rejected, none of them appears in a log
 * line of the stages (messages, MDC, stack traces), in an event on AX's topics (the rejected
 * topic's reason header included; the commands topic holds the user's own bytes and the rejected
 * topic echoes them back to their producer by design), or in what the CLI prints without {@code
 * --reveal}.
 */
@ExtendWith(AxInfraExtension.class)
class SecretLeakIT {

  private static final String SIGNING = "signing-secret-5b0c6e1d2f3a4b5c6d7e8f90a1b2c3d4";
  private static final String PARAM = "param-secret-7f3a9c61";
  private static final String HEADER = "header-secret-41be02d7";
  private static final String REJECTED = "rejected-secret-9d2e11c4";
  private static final List<String> SECRETS = List.of(SIGNING, PARAM, HEADER, REJECTED);

  @Test
  void noSecretReachesALogLineAnEventOrTheCli(AxTestEnv env) throws Exception {
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    Logger root =
        ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(Logger.ROOT_LOGGER_NAME);
    logs.start();
    root.addAppender(logs);
    AtomicReference<String> signature = new AtomicReference<>();
    HttpServer endpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
    endpoint.createContext(
        "/",
        exchange -> {
          signature.set(exchange.getRequestHeaders().getFirst("X-AX-Signature"));
          exchange.getRequestBody().readAllBytes();
          exchange.sendResponseHeaders(500, -1);
          exchange.close();
        });
    endpoint.start();
    Map<String, String> config =
        Map.of(
            "AX_HTTP_ALLOWED_HOSTS", "127.0.0.1",
            "AX_HTTP_SIGNING_SECRET", SIGNING,
            "AX_RETRY_RESCAN", "1s");
    List<String> written = new ArrayList<>();
    try (TestRuntime runtime = TestRuntime.open(env, config);
        RunningStages stages =
            RunningStages.on(runtime, "node-1").ingest().ticker().retries().dispatcher(config);
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        CliRun.Target cli = CliRun.pointAt(env, runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "retry", "deadletter", "dispatcher");
      String url = "http://127.0.0.1:" + endpoint.getAddress().getPort() + "/work";
      Commands.send(
          producer,
          runtime,
          "leaky",
          "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":0},\"executor\":{\"type\":\"HTTP\",\"url\":\""
              + url
              + "\",\"headers\":{\"Authorization\":\"Bearer "
              + HEADER
              + "\"}},\"params\":{\"password\":\""
              + PARAM
              + "\"},\"retry\":{\"maxRetries\":1,\"backoffBaseMs\":200,\"jitter\":false}");
      Commands.send(
          producer,
          runtime,
          "bad-header",
          "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":0},\"executor\":{\"type\":\"HTTP\",\"url\":\""
              + url
              + "\",\"headers\":{\"X-Token\":\""
              + REJECTED
              + "\\r\\nX-Admin: 1\"}}");
      DeadLetterStore letters = new DeadLetterStore(runtime.dataSource());
      long letter = DeadLetters.awaitNewest(letters, "leaky", Duration.ofSeconds(60)).id();
      assertThat(signature.get()).as("the calls were signed").startsWith("v1=");

      for (String[] args :
          List.of(
              new String[] {"task", "show", "leaky"},
              new String[] {"task", "show", "leaky", "--json"},
              new String[] {"task", "list", "--json"},
              new String[] {"dlq", "list"},
              new String[] {"dlq", "list", "--json"},
              new String[] {"dlq", "show", Long.toString(letter)},
              new String[] {"dlq", "show", Long.toString(letter), "--json"},
              new String[] {"audit"})) {
        CliRun run = CliRun.ax(args);
        written.add("ax " + String.join(" ", args) + ": " + run.out() + run.err());
      }
      try (TopicReader rejected =
          new TopicReader(runtime.bootstrapServers(), runtime.topics().commandsRejected())) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> rejected.poll().stream().anyMatch(r -> "bad-header".equals(r.key())));
        for (ConsumerRecord<String, byte[]> record : rejected.poll()) {
          for (Header header : record.headers()) {
            written.add("rejected header " + header.key() + ": " + text(header.value()));
          }
        }
      }
      for (String topic :
          List.of(
              runtime.topics().scheduled(),
              runtime.topics().due(),
              runtime.topics().dueRetry(),
              runtime.topics().completed(),
              runtime.topics().retry(),
              runtime.topics().deadletter())) {
        try (TopicReader reader = new TopicReader(runtime.bootstrapServers(), topic)) {
          await()
              .atMost(Duration.ofSeconds(30))
              .alias("events on " + topic)
              .until(() -> !reader.poll().isEmpty());
          reader.poll().forEach(r -> written.add(topic + ": " + text(r.value())));
        }
      }
      assertThat(
              new dev.ax.common.store.InstanceStore(runtime.dataSource())
                  .findByTask("leaky").stream().anyMatch(r -> r.status() == InstanceStatus.DEAD))
          .isTrue();
    } finally {
      endpoint.stop(0);
      root.detachAppender(logs);
    }
    for (ILoggingEvent event : logs.list) {
      written.add(
          "log "
              + event.getFormattedMessage()
              + " "
              + event.getMDCPropertyMap()
              + (event.getThrowableProxy() == null
                  ? ""
                  : ThrowableProxyUtil.asString(event.getThrowableProxy())));
    }
    // What was read (log levels differ between builds: the dead letter's ERROR line is always on).
    assertThat(written)
        .as("what AX wrote")
        .anyMatch(w -> w.startsWith("ax dlq show"))
        .anyMatch(w -> w.contains("ax.task.deadletter: "))
        .anyMatch(w -> w.startsWith("rejected header"))
        .anyMatch(w -> w.startsWith("log ") && w.contains("leaky"));
    for (String secret : SECRETS) {
      assertThat(written)
          .as("nothing AX wrote holds %s", secret)
          .noneMatch(w -> w.contains(secret));
    }
  }

  private static String text(byte[] bytes) {
    return bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8);
  }
}
