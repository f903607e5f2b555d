package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import dev.ax.api.http.ApiSettings;
import dev.ax.api.http.ConsolePage;
import dev.ax.cli.local.ConsoleServer;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.DeadLetterState;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;

/**
 * The console in chromium over every stage that runs tasks (ingest, ticker, retry, dead-letter,
 * dispatcher): a pause from a task's page stops its runs on {@code ax.task.completed}, a resume
 * starts them again, a cancel ends them; a dead letter replayed from its page runs again and
 * succeeds, and the task's page shows each run's output (as text). Skipped, with one line, where
 * chromium or chromedriver is not installed.
 */
@ExtendWith(AxInfraExtension.class)
class ConsoleRunsBrowserIT {

  /** Three periods of the ticking task: long enough for a run that should not come to come. */
  private static final Duration QUIET = Duration.ofSeconds(3);

  private static final Duration REACTION = Duration.ofSeconds(30);

  @Test
  void pauseResumeAndCancelFromThePageTakeEffectOnRunsAndAReplayedDeadLetterRuns(AxTestEnv env)
      throws Exception {
    assumeTrue(
        ConsolePage.available(),
        "ConsoleRunsBrowserIT skipped: Debian's chromium and chromium-driver are not installed");
    AtomicBoolean fixed = new AtomicBoolean();
    HttpServer endpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
    endpoint.createContext(
        "/job",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          // Markup in the output: the page must show it as text.
          byte[] body =
              fixed.get()
                  ? new byte[0]
                  : "<b id='injected'>down</b>".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(
              fixed.get() ? 200 : 503, body.length == 0 ? -1 : body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    endpoint.start();
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages =
            RunningStages.on(runtime, "node-1")
                .ingest()
                .ticker()
                .retries()
                .dispatcher(Map.of("AX_HTTP_ALLOWED_HOSTS", "127.0.0.1"));
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        TopicReader completed = UserClients.completed(runtime);
        ConsoleServer console =
            ConsoleServer.start(
                new ApiSettings("127.0.0.1", 0, Optional.empty(), 64 * 1024, 500),
                List.of(),
                runtime.dataSource(),
                runtime.clock()::millis,
                runtime.kafka(),
                runtime.topics(),
                "console-runs-test");
        ConsolePage page =
            ConsolePage.open(
                console.consoleUrl().replace("/console/", ""),
                Path.of("target", "console-screenshots"))) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      String url = "http://127.0.0.1:" + endpoint.getAddress().getPort() + "/job";
      send(
          producer,
          runtime,
          "tick",
          "{\"v\":1,\"taskId\":\"tick\",\"trigger\":{\"type\":\"FIXED_RATE\",\"intervalMs\":1000},"
              + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":5000}");
      send(
          producer,
          runtime,
          "flaky",
          "{\"v\":1,\"taskId\":\"flaky\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":0},"
              + "\"executor\":{\"type\":\"HTTP\",\"url\":\""
              + url
              + "\"},\"timeoutMs\":5000,\"retry\":{\"maxRetries\":0}}");
      TaskStore tasks = new TaskStore(runtime.dataSource());
      await().atMost(REACTION).until(() -> !runsOf(completed, "tick", 0).isEmpty());

      page.show("/task/tick");
      page.act("Pause", "quiet hours");
      await()
          .atMost(REACTION)
          .until(() -> tasks.find("tick").orElseThrow().state() == TaskState.PAUSED);
      long pausedAtMs = runtime.clock().millis();
      page.awaitHeading("PAUSED");
      await()
          .during(QUIET)
          .atMost(QUIET.plus(REACTION))
          .until(() -> runsOf(completed, "tick", pausedAtMs).isEmpty());

      page.act("Resume", "quiet hours over");
      await()
          .atMost(REACTION)
          .until(() -> tasks.find("tick").orElseThrow().state() == TaskState.ACTIVE);
      long resumedAtMs = runtime.clock().millis();
      await().atMost(REACTION).until(() -> !runsOf(completed, "tick", resumedAtMs).isEmpty());

      page.awaitHeading("ACTIVE");
      page.act("Cancel", "no longer needed");
      await()
          .atMost(REACTION)
          .until(() -> tasks.find("tick").orElseThrow().state() == TaskState.CANCELLED);
      long cancelledAtMs = runtime.clock().millis();
      await()
          .during(QUIET)
          .atMost(QUIET.plus(REACTION))
          .until(() -> runsOf(completed, "tick", cancelledAtMs).isEmpty());
      page.shoot("task-cancelled");

      DeadLetterStore letters = new DeadLetterStore(runtime.dataSource());
      DeadLetterStore.Filter open =
          new DeadLetterStore.Filter("flaky", null, null, null, DeadLetterState.OPEN);
      await().atMost(REACTION).until(() -> !letters.list(open, 1).isEmpty());
      long letter = letters.list(open, 1).get(0).id();
      fixed.set(true);
      long replayedAtMs = runtime.clock().millis();
      page.show("/deadletter/" + letter);
      page.act("Replay", "endpoint fixed");
      assertThat(page.awaitMessage()).contains("Replay: replayed");
      await()
          .atMost(REACTION)
          .until(
              () ->
                  runsOf(completed, "flaky", replayedAtMs).stream()
                      .anyMatch(e -> e.status() == InstanceStatus.SUCCESS));
      page.shoot("deadletter-replayed");

      page.show("/task/flaky");
      assertThat(page.text(By.id("run-output")))
          .as("each run's output, the replayed success and the failure before it")
          .contains("HTTP 200", "HTTP 503");
      assertThat(page.browser().findElements(By.id("injected")))
          .as("a run's output is text on the page, never HTML")
          .isEmpty();
      page.shoot("task-run-output");
    } finally {
      endpoint.stop(0);
    }
  }

  private static void send(
      KafkaProducer<String, byte[]> producer, TestRuntime runtime, String key, String json)
      throws Exception {
    producer
        .send(
            new ProducerRecord<>(
                runtime.topics().commands(), key, json.getBytes(StandardCharsets.UTF_8)))
        .get();
  }

  /**
   * The completion events of {@code taskId} read so far whose run started after {@code afterMs}.
   */
  private static List<TaskCompletedEvent> runsOf(
      TopicReader completed, String taskId, long afterMs) {
    return completed.poll().stream()
        .map(r -> AxJson.read(r.value(), TaskCompletedEvent.class))
        .filter(e -> e.taskId().equals(taskId) && e.startedAtMs() > afterMs)
        .toList();
  }
}
