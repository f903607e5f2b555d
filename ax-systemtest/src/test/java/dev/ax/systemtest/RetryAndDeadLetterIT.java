package dev.ax.systemtest;

import static dev.ax.systemtest.TaskBody.http;
import static dev.ax.systemtest.TaskBody.once;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.DeadLetterState;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.testing.StatusPath;
import dev.ax.common.testing.TestRuntime;
import dev.ax.deadletter.DeadLetterReplayer;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.embedded.junit.WallClock;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Retries and dead letters end to end: an HTTP task whose endpoint is down is retried three times
 * with the policy's backoff, becomes a dead letter holding all four attempts and the last stack
 * trace, and the webhook hears of it once; replayed after the endpoint is back it succeeds with the
 * same instance id, and a second replay of the same letter runs nothing.
 */
@ExtendWith(AxInfraExtension.class)
@WallClock
class RetryAndDeadLetterIT {

  private static final long[] BACKOFF_MS = {500, 1000, 2000};

  /** Claim and hand-over overhead allowed on top of a backoff on this shared host. */
  private static final long TOLERANCE_MS = 1500;

  @Test
  void aFailingHttpTaskIsRetriedWithBackoffThenDeadLetteredThenReplayedOnce(AxTestEnv env)
      throws Exception {
    AlertWebhook webhook = AlertWebhook.start();
    List<String> alerts = webhook.alerts();
    int endpointPort;
    try (ServerSocket probe = new ServerSocket(0)) {
      endpointPort = probe.getLocalPort(); // nothing listens there until the endpoint recovers
    }
    Map<String, String> config =
        Map.of(
            "AX_HTTP_ALLOWED_HOSTS", "127.0.0.1",
            "AX_DEADLETTER_WEBHOOK_URL", webhook.url(),
            "AX_RETRY_RESCAN", "1s");
    HttpServer endpoint = null;
    try (TestRuntime runtime = TestRuntime.open(env, config);
        RunningStages stages =
            RunningStages.on(runtime, "node-1").ingest().ticker().retries().dispatcher();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "retry", "deadletter", "dispatcher");
      Commands.send(
          producer,
          runtime,
          "flaky",
          http(once(0), "http://127.0.0.1:" + endpointPort + "/work")
              + ",\"retry\":{\"maxRetries\":3,\"backoffBaseMs\":500,\"backoffMaxMs\":60000,"
              + "\"jitter\":false}");

      InstanceStore instances = new InstanceStore(runtime.dataSource());
      InstanceRow dead =
          Commands.awaitFirstInstance(runtime, "flaky", row -> row.status() == InstanceStatus.DEAD);
      assertThat(dead.attempt()).isEqualTo(4);
      assertThat(dead.lastError()).contains("HTTP call failed").contains("ConnectException");

      // The backoff, measured on the audit log: end of attempt n to the start of attempt n + 1.
      AuditLog audit = new AuditLog(runtime.dataSource());
      List<AuditLog.Transition> history = audit.history(dead.instanceId());
      List<Long> gaps = new ArrayList<>();
      for (int attempt = 1; attempt <= 3; attempt++) {
        long failedAtMs = at(history, attempt, InstanceStatus.RUNNING, InstanceStatus.FAILED);
        long nextStartMs =
            at(history, attempt + 1, InstanceStatus.DISPATCHED, InstanceStatus.RUNNING);
        gaps.add(nextStartMs - failedAtMs);
      }
      System.out.println("Retry gaps (failure to next start), ms: " + gaps);
      for (int i = 0; i < 3; i++) {
        assertThat(gaps.get(i))
            .as("gap before retry %d", i + 1)
            .isBetween(BACKOFF_MS[i], BACKOFF_MS[i] + TOLERANCE_MS);
      }
      assertThat(history)
          .filteredOn(t -> t.to() == InstanceStatus.RETRYING)
          .extracting(AuditLog.Transition::attempt)
          .containsExactly(1, 2, 3);
      assertThat(history.get(history.size() - 1).to()).isEqualTo(InstanceStatus.DEAD);

      DeadLetterStore letters = new DeadLetterStore(runtime.dataSource());
      DeadLetterStore.DeadLetter letter =
          DeadLetters.awaitNewest(letters, "flaky", Duration.ofSeconds(30));
      assertThat(letter.state()).isEqualTo(DeadLetterState.OPEN);
      assertThat(letter.instanceId()).isEqualTo(dead.instanceId());
      assertThat(letter.lastStack()).contains("ConnectException: Connect to").contains("\tat ");
      assertThat(letter.stateReason()).contains("retries exhausted");
      assertThat(AxJson.MAPPER.readTree(letter.taskSnapshot()).path("taskId").asText())
          .isEqualTo("flaky");
      JsonNode attempts = AxJson.MAPPER.readTree(letter.attemptsJson());
      assertThat(attempts).hasSize(4);
      for (JsonNode attempt : attempts) {
        assertThat(attempt.path("outcome").asText()).isEqualTo("FAILED");
        assertThat(attempt.path("error").asText()).contains("ConnectException");
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> alerts.size() == 1);
      assertThat(alerts.get(0)).contains(dead.instanceId());

      // The endpoint recovers; the operator replays the letter, twice.
      List<String> served = new CopyOnWriteArrayList<>();
      endpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", endpointPort), 0);
      endpoint.createContext(
          "/work",
          exchange -> {
            served.add(
                exchange.getRequestHeaders().getFirst("Idempotency-Key")
                    + " attempt "
                    + exchange.getRequestHeaders().getFirst("X-AX-Attempt"));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
          });
      endpoint.start();
      DeadLetterReplayer replayer =
          new DeadLetterReplayer(letters, instances, producer, runtime.topics());
      long nowMs = runtime.clock().millis();
      assertThat(replayer.replay(letter.id(), "operator", "endpoint fixed", nowMs))
          .isEqualTo(DeadLetterStore.ReplayResult.REPLAYED);
      assertThat(replayer.replay(letter.id(), "operator", "clicked twice", nowMs))
          .isEqualTo(DeadLetterStore.ReplayResult.NOT_OPEN);

      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  instances.find(dead.instanceId()).orElseThrow().status()
                      == InstanceStatus.SUCCESS);
      // The replay is attempt 5 of the same instance: the same key as attempts 1 to 4 had.
      assertThat(served).containsExactly(dead.instanceId() + " attempt 5");
      assertThat(StatusPath.of(audit.history(dead.instanceId())))
          .endsWith(
              InstanceStatus.DEAD,
              InstanceStatus.DISPATCHED,
              InstanceStatus.RUNNING,
              InstanceStatus.SUCCESS);
      assertThat(letters.find(letter.id()).orElseThrow().state())
          .isEqualTo(DeadLetterState.REPLAYED);
      assertThat(alerts).hasSize(1);
    } finally {
      webhook.close();
      if (endpoint != null) {
        endpoint.stop(0);
      }
    }
  }

  /** When attempt {@code attempt} moved {@code from → to}, by the audit log. */
  private static long at(
      List<AuditLog.Transition> history, int attempt, InstanceStatus from, InstanceStatus to) {
    return history.stream()
        .filter(t -> t.attempt() == attempt && t.from() == from && t.to() == to)
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no " + from + " -> " + to + " for attempt " + attempt))
        .atMs();
  }
}
