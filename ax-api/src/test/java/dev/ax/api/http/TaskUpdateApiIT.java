package dev.ax.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.api.client.ApiClient;
import dev.ax.api.kafka.CommandSender;
import dev.ax.common.contract.AxJson;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.testing.StoreFixture;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ingest.IngestConfig;
import dev.ax.ingest.IngestStage;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code POST /api/v1/tasks/{taskId}/update} end to end through a real ingest stage: the new spec
 * becomes the task's next version (seen through the API), audited by the token's name; a spec
 * ingest refuses is rejected with its reason on the rejected topic and changes nothing; the API
 * refuses a body without a spec and a reader's update.
 */
@ExtendWith(AxInfraExtension.class)
class TaskUpdateApiIT {

  @RegisterExtension final StoreFixture store;

  private final AxTestEnv env;
  private final CommandSender sender;
  private final KafkaProducer<String, byte[]> producer;
  private IngestStage ingest;
  private ApiServer api;

  TaskUpdateApiIT(AxTestEnv env) {
    this.env = env;
    store = StoreFixture.open(env);
    sender = CommandSender.open(store.runtime().kafka(), "update-test");
    producer = KafkaClients.producer(store.runtime().kafka(), "update-test-replay");
  }

  @AfterEach
  void stop() {
    if (api != null) {
      api.close();
    }
    if (ingest != null) {
      ingest.close();
    }
    producer.close();
    sender.close();
  }

  @Test
  void anUpdateBecomesTheTasksNextVersionAndABadSpecIsRejectedWithItsReason() throws Exception {
    long now = System.currentTimeMillis();
    store.tasks().create(List.of(TestTasks.newTask("nightly", now + 3_600_000)), "test", now);
    ingest =
        new IngestStage(
                store.runtime().context("update-ingest"),
                IngestConfig.from(store.runtime().config()))
            .start();
    api =
        ApiServer.start(
            new ApiSettings("127.0.0.1", 0, Optional.of(ApiFixtures.tokens()), 64 * 1024, 200),
            ApiFixtures.backends(store, sender, producer, List.of()));
    URI base = URI.create("http://127.0.0.1:" + api.port() + "/api/v1");
    ApiClient operator = new ApiClient(base, ApiFixtures.OPERATOR);

    JsonNode sent = operator.post("tasks/nightly/update", update("every night", cronSpec()));
    assertThat(sent.get("commandId").asText()).startsWith("ax-");
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> operator.get("tasks/nightly").get("version").asInt() == 2);
    JsonNode task = operator.get("tasks/nightly");
    assertThat(task.path("spec").path("trigger").path("type").asText()).isEqualTo("CRON");
    assertThat(new OperatorLog(store.runtime().dataSource()).newest("olga", 5))
        .extracting(OperatorLog.Entry::action)
        .containsExactly("task update");

    ObjectNode noExecutor = cronSpec();
    noExecutor.remove("executor");
    try (TopicReader rejected =
        new TopicReader(env.bootstrapServers(), store.runtime().topics().commandsRejected())) {
      operator.post("tasks/nightly/update", update("forgot the executor", noExecutor));
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  rejected.poll().stream()
                      .anyMatch(
                          r ->
                              "nightly".equals(r.key())
                                  && new String(
                                          r.headers().lastHeader("ax.reject.reason").value(),
                                          StandardCharsets.UTF_8)
                                      .contains("executor")));
    }
    assertThat(operator.get("tasks/nightly").get("version").asInt()).isEqualTo(2);

    assertThatThrownBy(
            () ->
                operator.post(
                    "tasks/nightly/update",
                    AxJson.MAPPER.createObjectNode().put("reason", "no spec")))
        .isInstanceOfSatisfying(
            ApiClient.ApiError.class,
            e -> {
              assertThat(e.status()).isEqualTo(400);
              assertThat(e.getMessage()).contains("whole spec");
            });
    // A spec read masked and sent back as it is would make the mask the secret's new value.
    ObjectNode masked = cronSpec();
    masked.putObject("params").put("password", "****");
    assertThatThrownBy(() -> operator.post("tasks/nightly/update", update("copied", masked)))
        .isInstanceOfSatisfying(
            ApiClient.ApiError.class,
            e -> {
              assertThat(e.status()).isEqualTo(400);
              assertThat(e.getMessage()).contains("masked values", "params.password");
            });
    ApiClient reader = new ApiClient(base, ApiFixtures.READER);
    assertThatThrownBy(() -> reader.post("tasks/nightly/update", update("x", cronSpec())))
        .isInstanceOfSatisfying(
            ApiClient.ApiError.class, e -> assertThat(e.code()).isEqualTo("forbidden"));
  }

  private static ObjectNode update(String reason, ObjectNode spec) {
    ObjectNode body = AxJson.MAPPER.createObjectNode().put("reason", reason);
    body.set("spec", spec);
    return body;
  }

  private static ObjectNode cronSpec() {
    ObjectNode spec = AxJson.MAPPER.createObjectNode();
    spec.putObject("trigger")
        .put("type", "CRON")
        .put("expression", "0 0 2 * * ?")
        .put("zone", "UTC");
    spec.putObject("executor").put("type", "IN_PROCESS").put("handler", "noop");
    spec.put("timeoutMs", 5000);
    return spec;
  }
}
