package dev.ax.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.api.kafka.CommandSender;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.NewTask;
import dev.ax.common.testing.StoreFixture;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A task's backfills through the API over a real database: requested (201 with its firings),
 * refused with the reason (409: a second one while one runs, a ONCE task; 404 an unknown task; 400
 * a malformed instant or overlap), listed, cancelled once, audited by the token's name, and kept to
 * the token's role and namespaces. The ticker's part is BackfillIT's (ax-systemtest).
 */
@ExtendWith(AxInfraExtension.class)
class BackfillRoutesIT {

  @RegisterExtension final StoreFixture store;

  private final HttpClient http = HttpClient.newHttpClient();
  private final CommandSender sender;
  private ApiServer api;

  BackfillRoutesIT(AxTestEnv env) {
    store = StoreFixture.open(env);
    sender = CommandSender.open(store.runtime().kafka(), "backfill-routes-test");
  }

  @AfterEach
  void stop() {
    if (api != null) {
      api.close();
    }
    sender.close();
  }

  @Test
  void aBackfillIsRequestedListedCancelledAndAuditedWithinItsNamespace() throws Exception {
    long now = System.currentTimeMillis();
    Trigger everySecond = new Trigger.Cron("* * * * * ?", ZoneOffset.UTC);
    store
        .tasks()
        .create(
            List.of(
                new NewTask(TestTasks.noop("tick", everySecond), "trace-tick", now + 1000),
                new NewTask(TestTasks.noop("billing~nightly", everySecond), "trace-n", now + 1000),
                TestTasks.newTask("one-off", now + 3_600_000)),
            "test",
            now);
    api =
        ApiServer.start(
            new ApiSettings("127.0.0.1", 0, Optional.of(ApiFixtures.tokens()), 64 * 1024, 200),
            ApiFixtures.backends(store, sender, null, List.of()));
    Instant to = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(60);
    String range =
        "\"from\":\"" + to.minusSeconds(9) + "\",\"to\":\"" + to + "\",\"reason\":\"lost hour\"";

    JsonNode created =
        post("/api/v1/tasks/tick/backfills", ApiFixtures.OPERATOR, "{" + range + "}", 201);
    assertThat(created.get("taskId").asText()).isEqualTo("tick");
    assertThat(created.get("firings").asLong()).isEqualTo(10);
    assertThat(created.get("state").asText()).isEqualTo("RUNNING");
    assertThat(created.get("overlap").asText())
        .as("the task allows overlap")
        .isEqualTo("ALLOW_ALL");
    String id = created.get("backfillId").asText();
    assertThat(
            post("/api/v1/tasks/tick/backfills", ApiFixtures.OPERATOR, "{" + range + "}", 409)
                .get("message")
                .asText())
        .isEqualTo("task tick has backfill " + id + " running: wait for it or cancel it first");
    JsonNode listed = get("/api/v1/tasks/tick/backfills", ApiFixtures.READER, 200);
    assertThat(listed.get("backfills")).hasSize(1);
    assertThat(listed.get("backfills").get(0).get("remaining").asLong()).isEqualTo(10);

    String reason = "{\"reason\":\"enough\"}";
    String cancel = "/api/v1/tasks/tick/backfills/" + id + "/cancel";
    post(cancel, ApiFixtures.READER, reason, 403);
    assertThat(post(cancel, ApiFixtures.OPERATOR, reason, 200).get("state").asText())
        .isEqualTo("CANCELLED");
    assertThat(post(cancel, ApiFixtures.OPERATOR, reason, 409).get("message").asText())
        .isEqualTo("backfill " + id + " is CANCELLED already");
    post("/api/v1/tasks/tick/backfills/bf-nope/cancel", ApiFixtures.OPERATOR, reason, 404);

    assertThat(
            post("/api/v1/tasks/one-off/backfills", ApiFixtures.OPERATOR, "{" + range + "}", 409)
                .get("message")
                .asText())
        .contains("is a ONCE task");
    post("/api/v1/tasks/nobody/backfills", ApiFixtures.OPERATOR, "{" + range + "}", 404);
    post(
        "/api/v1/tasks/tick/backfills",
        ApiFixtures.OPERATOR,
        "{\"from\":\"yesterday\",\"to\":\"" + to + "\",\"reason\":\"r\"}",
        400);
    post(
        "/api/v1/tasks/tick/backfills",
        ApiFixtures.OPERATOR,
        "{" + range + ",\"overlap\":\"CANCEL_OTHER\"}",
        409);

    // A namespace's token reaches its own tasks only.
    post("/api/v1/tasks/tick/backfills", ApiFixtures.BILLING, "{" + range + "}", 403);
    JsonNode billing =
        post(
            "/api/v1/tasks/nightly/backfills?namespace=billing",
            ApiFixtures.BILLING,
            "{" + range + ",\"overlap\":\"SKIP\"}",
            201);
    assertThat(billing.get("taskId").asText()).isEqualTo("billing~nightly");
    assertThat(billing.get("overlap").asText()).isEqualTo("SKIP");

    List<OperatorLog.Entry> audit = new OperatorLog(store.runtime().dataSource()).newest(null, 10);
    assertThat(audit)
        .extracting(OperatorLog.Entry::action)
        .containsExactly("task backfill", "task backfill-cancel", "task backfill");
    assertThat(audit.get(2).actor()).isEqualTo("olga");
    assertThat(audit.get(2).reason()).startsWith("lost hour [backfill " + id + " from ");
  }

  private JsonNode get(String path, String token, int status) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + token).build();
    HttpResponse<String> answer = http.send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as("GET %s: %s", path, answer.body()).isEqualTo(status);
    return AxJson.MAPPER.readTree(answer.body());
  }

  private JsonNode post(String path, String token, String body, int status) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer " + token)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    HttpResponse<String> answer = http.send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as("POST %s: %s", path, answer.body()).isEqualTo(status);
    return AxJson.MAPPER.readTree(answer.body());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + api.port() + path);
  }
}
