package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.contract.TaskDeadEvent;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.AfterFailure;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.OutboxStore;
import dev.ax.common.store.Outcome;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.StatusPath;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.testing.TopicReader;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.dispatcher.store.ClaimStore;
import dev.ax.dispatcher.store.OutcomeStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs taken back by the reaper (their dispatcher died) are attempts, but not failed ones: they use
 * up none of the task's retries, the dead letter counts only the failures, and the take-backs have
 * a bound of their own (AX_MAX_TAKEBACKS) past which the instance ends DEAD with a dead letter
 * saying so. A dead dispatcher is played by the test: it claims the run with a short lease and
 * never records an outcome.
 */
@ExtendWith(AxInfraExtension.class)
class TakeBackIT {

  private static final Duration DEADLINE = Duration.ofSeconds(60);

  /** Lease of the runs the test's dead dispatchers claim: expired soon after. */
  private static final long DEAD_LEASE_MS = 300;

  @Test
  void aRunTakenBackUsesUpNoRetryAndTheDeadLetterCountsOnlyTheFailures(AxTestEnv env)
      throws Exception {
    List<String> served = new CopyOnWriteArrayList<>();
    HttpServer endpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    // /ok always answers 200; /flaky fails attempt 2 only; /down always fails.
    for (String path : List.of("/ok", "/flaky", "/down")) {
      endpoint.createContext(
          path,
          exchange -> {
            String attempt = exchange.getRequestHeaders().getFirst("X-AX-Attempt");
            served.add(path + " " + attempt);
            boolean fails = path.equals("/down") || (path.equals("/flaky") && "2".equals(attempt));
            exchange.sendResponseHeaders(fails ? 500 : 200, -1);
            exchange.close();
          });
    }
    endpoint.start();
    String base = "http://127.0.0.1:" + endpoint.getAddress().getPort();
    Map<String, String> config =
        Map.of(
            "AX_HTTP_ALLOWED_HOSTS", "127.0.0.1",
            "AX_REAPER_INTERVAL", "200ms",
            "AX_TICKER_HEARTBEAT", "500ms",
            "AX_RETRY_RESCAN", "1s");
    try (TestRuntime runtime = TestRuntime.open(env, config)) {
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      ClaimStore claimStore = new ClaimStore(runtime.dataSource());
      OutcomeStore outcomeStore = new OutcomeStore(runtime.dataSource());
      long now = runtime.clock().millis();
      // Each one's first run is claimed by a dispatcher that then dies.
      String noRetries = storeHttp(runtime, "no-retries", base + "/ok", 0, now - 1000);
      String flaky = storeHttp(runtime, "one-retry-flaky", base + "/flaky", 1, now - 1000);
      String down = storeHttp(runtime, "one-retry-down", base + "/down", 1, now - 1000);
      List<String> ids = List.of(noRetries, flaky, down);
      runtime.markDispatchedAsLeader("old-ticker", ids, now - 900);
      assertThat(claimStore.claim(ids, "dead-dispatcher", now + DEAD_LEASE_MS, now - 800))
          .hasSize(3);

      try (RunningStages stages =
          RunningStages.on(runtime, "node-1").ticker().retries().dispatcher()) {
        await().atMost(DEADLINE).until(() -> isOver(instances, noRetries));
        await().atMost(DEADLINE).until(() -> isOver(instances, flaky));
        await().atMost(DEADLINE).until(() -> isOver(instances, down));

        // maxRetries 0: the run taken back was not its one try, so attempt 2 ran, and succeeded.
        assertThat(instances.find(noRetries).orElseThrow())
            .satisfies(
                row -> {
                  assertThat(row.status()).isEqualTo(InstanceStatus.SUCCESS);
                  assertThat(row.attempt()).isEqualTo(2);
                });
        // maxRetries 1: attempt 2 was its first failure, so attempt 3 was its retry.
        assertThat(instances.find(flaky).orElseThrow())
            .satisfies(
                row -> {
                  assertThat(row.status()).isEqualTo(InstanceStatus.SUCCESS);
                  assertThat(row.attempt()).isEqualTo(3);
                });
        assertThat(new AuditLog(runtime.dataSource()).history(flaky))
            .filteredOn(t -> t.to() == InstanceStatus.RETRYING)
            .singleElement()
            .satisfies(t -> assertThat(t.reason()).startsWith("retry 1 of 1"));
        // maxRetries 1, always failing: a take-back and two failures; the letter says two.
        InstanceRow dead = instances.find(down).orElseThrow();
        assertThat(dead.status()).isEqualTo(InstanceStatus.DEAD);
        assertThat(dead.attempt()).isEqualTo(3);
        assertThat(served)
            .containsExactlyInAnyOrder(
                "/ok 2", "/flaky 2", "/flaky 3", "/down 2", "/down 3"); // attempt 1 never called

        DeadLetterStore letters = new DeadLetterStore(runtime.dataSource());
        DeadLetterStore.DeadLetter letter =
            DeadLetters.awaitNewest(letters, dead.taskId(), DEADLINE);
        assertThat(letter.stateReason())
            .isEqualTo("retries exhausted: 2 attempt(s) failed, 1 retry allowed");
        JsonNode attempts = AxJson.MAPPER.readTree(letter.attemptsJson());
        assertThat(attempts).hasSize(3);
        assertThat(attempts.get(0).hasNonNull("outcome")).isFalse();
        assertThat(attempts.get(0).path("error").asText()).startsWith("run taken back");
        assertThat(attempts.get(1).path("outcome").asText()).isEqualTo("FAILED");
        assertThat(attempts.get(2).path("outcome").asText()).isEqualTo("FAILED");
      }
    } finally {
      endpoint.stop(0);
    }
  }

  @Test
  void anInstanceTakenBackMoreOftenThanTheBoundEndsDeadWithADeadLetterSayingSo(AxTestEnv env)
      throws Exception {
    AlertWebhook webhook = AlertWebhook.start();
    List<String> alerts = webhook.alerts();
    Map<String, String> config =
        Map.of(
            "AX_MAX_TAKEBACKS", "2",
            "AX_REAPER_INTERVAL", "200ms",
            "AX_TICKER_HEARTBEAT", "500ms",
            "AX_RETRY_RESCAN", "1s",
            "AX_DEADLETTER_WEBHOOK_URL", webhook.url());
    try (TestRuntime runtime = TestRuntime.open(env, config)) {
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      ClaimStore claimStore = new ClaimStore(runtime.dataSource());
      OutcomeStore outcomeStore = new OutcomeStore(runtime.dataSource());
      long now = runtime.clock().millis();
      TaskSpec spec = TestTasks.onceNoop("kills-its-dispatcher"); // maxRetries 3
      new TaskStore(runtime.dataSource())
          .create(List.of(new NewTask(spec, "trace-kill", now - 1000)), "test", now - 1000);
      String id = InstanceIds.of(spec.taskId(), now - 1000);
      runtime.markDispatchedAsLeader("old-ticker", List.of(id), now - 900);
      // Attempt 1 fails for real (recorded as a dispatcher records it), so the reason has a
      // failure to count; no dispatcher runs in this test.
      assertThat(claimStore.claim(List.of(id), "dispatcher-1", now + 60_000, now - 800)).hasSize(1);
      assertThat(
              outcomeStore
                  .recordOutcomes(
                      List.of(
                          new Outcome(
                              id,
                              spec.taskId(),
                              1,
                              InstanceStatus.FAILED,
                              "boom",
                              now - 700,
                              new AfterFailure.Retry(now - 700, "retry 1 of 3 in 0 ms"))),
                      "dispatcher-1",
                      now - 700)
                  .lost())
          .isEmpty();

      try (RunningStages stages = RunningStages.on(runtime, "node-1").ticker().retries();
          TopicReader completed = UserClients.completed(runtime);
          TopicReader deadTopic =
              new TopicReader(runtime.bootstrapServers(), runtime.topics().deadletter())) {
        // Attempts 2, 3 and 4 each start on a dispatcher that dies: the first two are taken back
        // (the bound is 2), the third ends the instance.
        for (int attempt = 2; attempt <= 4; attempt++) {
          int previous = attempt - 1;
          await()
              .atMost(DEADLINE)
              .until(
                  () -> {
                    InstanceRow row = instances.find(id).orElseThrow();
                    return row.status() == InstanceStatus.DISPATCHED && row.attempt() == previous;
                  });
          long claimAt = runtime.clock().millis();
          assertThat(
                  claimStore.claim(
                      List.of(id), "dead-" + attempt, claimAt + DEAD_LEASE_MS, claimAt))
              .singleElement()
              .satisfies(c -> assertThat(c.takenBack()).isEqualTo(previous - 1));
        }
        await()
            .atMost(DEADLINE)
            .until(() -> instances.find(id).orElseThrow().status() == InstanceStatus.DEAD);
        String reason =
            "taken back 2 time(s) after its dispatcher died (at most 2), and its dispatcher died"
                + " again during attempt 4; 1 attempt(s) failed, 3 retries allowed";

        InstanceRow dead = instances.find(id).orElseThrow();
        assertThat(dead.attempt()).isEqualTo(4);
        assertThat(dead.lastError()).isEqualTo("its dispatcher dead-4 died: the run lease expired");
        List<AuditLog.Transition> history = new AuditLog(runtime.dataSource()).history(id);
        assertThat(StatusPath.of(history))
            .containsExactly(
                InstanceStatus.SCHEDULED,
                InstanceStatus.DISPATCHED,
                InstanceStatus.RUNNING,
                InstanceStatus.FAILED,
                InstanceStatus.RETRYING,
                InstanceStatus.DISPATCHED,
                InstanceStatus.RUNNING,
                InstanceStatus.DISPATCHED,
                InstanceStatus.RUNNING,
                InstanceStatus.DISPATCHED,
                InstanceStatus.RUNNING,
                InstanceStatus.FAILED,
                InstanceStatus.DEAD);
        assertThat(history.get(history.size() - 1))
            .satisfies(
                t -> {
                  assertThat(t.actor()).isEqualTo("node-1");
                  assertThat(t.reason()).isEqualTo(reason);
                });

        // What a dispatcher sends for a death: the completion and the dead instance.
        await().atMost(DEADLINE).until(() -> !completed.poll().isEmpty());
        TaskCompletedEvent completion =
            AxJson.read(completed.poll().get(0).value(), TaskCompletedEvent.class);
        assertThat(completion.status()).isEqualTo(InstanceStatus.FAILED);
        assertThat(completion.instanceStatus()).isEqualTo(InstanceStatus.DEAD);
        assertThat(completion.attempt()).isEqualTo(4);
        assertThat(completion.node()).isEqualTo("dead-4");
        await().atMost(DEADLINE).until(() -> !deadTopic.poll().isEmpty());
        List<ConsumerRecord<String, byte[]>> deadEvents = deadTopic.poll();
        assertThat(deadEvents).hasSize(1);
        TaskDeadEvent deadEvent = AxJson.read(deadEvents.get(0).value(), TaskDeadEvent.class);
        assertThat(deadEvent.reason()).isEqualTo(reason);
        assertThat(deadEvent.attempts()).isEqualTo(4);
        assertThat(deadEvent.group()).isEqualTo("default");
        // Committed to the outbox with the death, deleted once the broker had them.
        OutboxStore outbox = new OutboxStore(runtime.dataSource());
        await().atMost(DEADLINE).until(() -> outbox.pending() == 0);

        DeadLetterStore letters = new DeadLetterStore(runtime.dataSource());
        DeadLetterStore.DeadLetter letter =
            DeadLetters.awaitNewest(letters, dead.taskId(), DEADLINE);
        assertThat(letter.stateReason()).isEqualTo(reason);
        assertThat(letter.lastError()).isEqualTo(dead.lastError());
        await().atMost(DEADLINE).until(() -> alerts.size() == 1);
        assertThat(alerts.get(0)).contains(id).contains("taken back 2 time(s)");

        // A replay starts a fresh budget, of retries and of take-backs alike.
        assertThat(letters.replay(letter.id(), "operator", "fixed", runtime.clock().millis()))
            .isEqualTo(DeadLetterStore.ReplayResult.REPLAYED);
        long claimAt = runtime.clock().millis();
        assertThat(claimStore.claim(List.of(id), "dispatcher-5", claimAt + 60_000, claimAt))
            .singleElement()
            .satisfies(
                c -> {
                  assertThat(c.attempt()).isEqualTo(5);
                  assertThat(c.retryBase()).isEqualTo(4);
                  assertThat(c.takenBack()).isZero();
                });
      }
    } finally {
      webhook.close();
    }
  }

  private static String storeHttp(
      TestRuntime runtime, String taskId, String url, int maxRetries, long dueAtMs) {
    TaskSpec spec =
        TestTasks.spec(
            taskId,
            "default",
            Trigger.Once.after(Duration.ZERO),
            ExecutorSpec.http(URI.create(url), "POST", Map.of(), null),
            Duration.ofSeconds(5),
            new RetryPolicy(maxRetries, Duration.ofMillis(100), Duration.ofMillis(100), false),
            Map.of());
    new TaskStore(runtime.dataSource())
        .create(List.of(new NewTask(spec, "trace-" + taskId, dueAtMs)), "test", dueAtMs);
    return InstanceIds.of(taskId, dueAtMs);
  }

  private static boolean isOver(InstanceStore instances, String id) {
    InstanceStatus status = instances.find(id).orElseThrow().status();
    return status == InstanceStatus.SUCCESS || status == InstanceStatus.DEAD;
  }
}
