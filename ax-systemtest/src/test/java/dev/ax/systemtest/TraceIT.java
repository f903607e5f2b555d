package dev.ax.systemtest;

import static dev.ax.systemtest.TaskBody.http;
import static dev.ax.systemtest.TaskBody.once;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.sun.net.httpserver.HttpServer;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.trace.TraceLog;
import dev.ax.common.trace.Traceparent;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * One task's trace through every stage's log and its HTTP call: a command with a W3C {@code
 * traceparent} header, an HTTP task that fails, is retried once and dead-lettered. The captured log
 * lines of ingest, the ticker, the dispatcher, retry and dead-letter carry its trace (as the MDC
 * field, or among the ids a batch line names), and both HTTP attempts carry a {@code traceparent}
 * of that trace. Two runs of a periodic task have two different traces, each with the task's trace
 * as its parent field.
 */
@ExtendWith(AxInfraExtension.class)
class TraceIT {

  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

  private final ListAppender<ILoggingEvent> captured = new ListAppender<>();
  private final Logger axLogger = (Logger) LoggerFactory.getLogger("dev.ax");
  private Level axLevelBefore;

  @BeforeEach
  void captureLogs() {
    axLevelBefore = axLogger.getLevel();
    axLogger.setLevel(Level.DEBUG);
    captured.start();
    axLogger.addAppender(captured);
  }

  @AfterEach
  void stopCapturing() {
    axLogger.detachAppender(captured);
    axLogger.setLevel(axLevelBefore);
  }

  @Test
  void oneTasksTraceRunsThroughEveryStageAndItsHttpCall(AxTestEnv env) throws Exception {
    List<Map<String, String>> requests = new CopyOnWriteArrayList<>();
    HttpServer endpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    endpoint.createContext(
        "/work",
        exchange -> {
          requests.add(
              Map.of(
                  "traceparent", exchange.getRequestHeaders().getFirst("traceparent"),
                  "trace", exchange.getRequestHeaders().getFirst("X-AX-Trace-Id")));
          exchange.sendResponseHeaders(500, -1);
          exchange.close();
        });
    endpoint.start();
    try (TestRuntime runtime =
            TestRuntime.open(
                env, Map.of("AX_HTTP_ALLOWED_HOSTS", "127.0.0.1", "AX_RETRY_RESCAN", "1s"));
        RunningStages stages =
            RunningStages.on(runtime, "node-1").ingest().ticker().retries().dispatcher();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "retry", "deadletter", "dispatcher");
      String json =
          Commands.create(
              "traced",
              http(once(0), "http://127.0.0.1:" + endpoint.getAddress().getPort() + "/work")
                  + ",\"retry\":{\"maxRetries\":1,\"backoffBaseMs\":200,\"jitter\":false}");
      ProducerRecord<String, byte[]> command =
          new ProducerRecord<>(
              runtime.topics().commands(), "traced", json.getBytes(StandardCharsets.UTF_8));
      command
          .headers()
          .add(
              Traceparent.HEADER,
              ("00-" + TRACE + "-00f067aa0ba902b7-01").getBytes(StandardCharsets.UTF_8));
      producer.send(command).get();

      InstanceRow dead =
          Commands.awaitFirstInstance(
              runtime, "traced", row -> row.status() == InstanceStatus.DEAD);
      assertThat(dead.traceId()).isEqualTo(TRACE);
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(tracedStages())
                      .containsExactlyInAnyOrder(
                          "ingest", "ticker", "dispatcher", "retry", "deadletter"));
      assertThat(requests).hasSize(2);
      for (Map<String, String> request : requests) {
        assertThat(request.get("trace")).isEqualTo(TRACE);
        assertThat(Traceparent.parse(request.get("traceparent")))
            .hasValueSatisfying(tp -> assertThat(tp.traceId()).isEqualTo(TRACE));
      }
      assertThat(requests.get(0).get("traceparent"))
          .as("each attempt is its own span")
          .isNotEqualTo(requests.get(1).get("traceparent"));
    } finally {
      endpoint.stop(0);
    }
  }

  @Test
  void twoRunsOfAPeriodicTaskHaveTwoTracesUnderTheTasks(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env, Map.of());
        RunningStages stages = RunningStages.on(runtime, "node-1").ingest().ticker().dispatcher();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      Commands.sendJson(
          producer,
          runtime,
          "every-second",
          "{\"v\":1,\"taskId\":\"every-second\",\"traceId\":\"periodic-task\","
              + "\"trigger\":{\"type\":\"FIXED_RATE\",\"intervalMs\":1000},"
              + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":5000}");
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      List<InstanceRow> done =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(
                  () ->
                      instances.findByTask("every-second").stream()
                          .filter(row -> row.status() == InstanceStatus.SUCCESS)
                          .toList(),
                  rows -> rows.size() >= 2);
      Set<String> runTraces = done.stream().map(InstanceRow::traceId).collect(Collectors.toSet());
      assertThat(runTraces).hasSize(done.size()).doesNotContain("periodic-task");
      // The dispatcher's line about each run carries that run's trace and the task's as parent.
      for (InstanceRow run : done.subList(0, 2)) {
        assertThat(
                captured.list.stream()
                    .filter(e -> run.instanceId().equals(mdc(e, TraceLog.INSTANCE_ID)))
                    .filter(e -> e.getLoggerName().startsWith("dev.ax.dispatcher")))
            .isNotEmpty()
            .allSatisfy(
                e -> {
                  assertThat(mdc(e, TraceLog.TRACE_ID)).isEqualTo(run.traceId());
                  assertThat(mdc(e, TraceLog.TASK_TRACE_ID)).isEqualTo("periodic-task");
                });
      }
    }
  }

  /** The stages whose captured log lines carry {@link #TRACE}. */
  private Set<String> tracedStages() {
    return captured.list.stream()
        .filter(
            e -> TRACE.equals(mdc(e, TraceLog.TRACE_ID)) || e.getFormattedMessage().contains(TRACE))
        .map(e -> e.getLoggerName().split("\\.")[2])
        .collect(Collectors.toSet());
  }

  private static String mdc(ILoggingEvent event, String key) {
    return event.getMDCPropertyMap().get(key);
  }
}
