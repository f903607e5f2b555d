package dev.ax.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.api.kafka.CommandSender;
import dev.ax.api.write.DeadLetterActions;
import dev.ax.api.write.SwitchBoard;
import dev.ax.api.write.TaskCommands;
import dev.ax.common.contract.AxJson;
import dev.ax.common.store.PoolStore;
import dev.ax.common.store.SwitchStore;
import dev.ax.common.testing.StoreFixture;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The executor pool routes over a real database: create, heartbeat (registering on the first,
 * audited once), show with online endpoints, drain and undrain, remove; the heartbeat role reaches
 * the heartbeat route only, a scoped or read token changes no pool; bad names, URLs and the
 * endpoint bound are refused with a reason.
 */
@ExtendWith(AxInfraExtension.class)
class PoolApiIT {

  private static final String OPERATOR = ApiFixtures.OPERATOR;
  private static final String BEAT = "heartbeat-token-0123456789abcdef";

  @RegisterExtension final StoreFixture store;

  private final HttpClient http = HttpClient.newHttpClient();
  private final CommandSender sender;
  private final ApiServer api;

  PoolApiIT(AxTestEnv env) {
    store = StoreFixture.open(env);
    sender = CommandSender.open(store.runtime().kafka(), "pool-api-test");
    ApiTokens tokens =
        ApiTokens.parse(
            List.of(
                OPERATOR + " olga operate",
                ApiFixtures.READER + " rita read *",
                ApiFixtures.BILLING + " bill operate billing",
                BEAT + " beat heartbeat render,roles,nope"),
            "tokens");
    OperatorLog log = new OperatorLog(store.runtime().dataSource());
    api =
        ApiServer.start(
            new ApiSettings("127.0.0.1", 0, Optional.of(tokens), 64 * 1024, 1_000),
            new ApiBackends(
                store.runtime().dataSource(),
                new TaskCommands(sender, store.runtime().topics(), log, System::currentTimeMillis),
                new DeadLetterActions(
                    new DeadLetterStore(store.runtime().dataSource()),
                    null,
                    log,
                    System::currentTimeMillis),
                new SwitchBoard(
                    new SwitchStore(store.runtime().dataSource()), log, System::currentTimeMillis),
                new dev.ax.api.read.MetricsSummary(List.of(), System::currentTimeMillis)));
  }

  @AfterEach
  void stop() {
    api.close();
    sender.close();
  }

  @Test
  void aPoolIsCreatedFedByHeartbeatsDrainedAndRemovedAndEachChangeIsAudited() throws Exception {
    JsonNode created =
        post(
            "/api/v1/pools/render",
            OPERATOR,
            "{\"strategy\":\"least_busy\",\"offlineAfterMs\":\"5000\",\"reason\":\"new\"}",
            200);
    assertThat(created.get("change").asText()).isEqualTo("CREATED");
    String beat = "{\"url\":\"http://10.0.0.7:8080/\"}";
    assertThat(post("/api/v1/pools/render/heartbeat", BEAT, beat, 200).get("change").asText())
        .isEqualTo("CREATED");
    assertThat(post("/api/v1/pools/render/heartbeat", BEAT, beat, 200).get("change").asText())
        .isEqualTo("UNCHANGED");
    post(
        "/api/v1/pools/render/endpoints",
        OPERATOR,
        "{\"url\":\"http://10.0.0.8:8080\",\"reason\":\"by hand\"}",
        200);

    JsonNode pool = get("/api/v1/pools/render", OPERATOR, 200);
    assertThat(pool.get("strategy").asText()).isEqualTo("LEAST_BUSY");
    assertThat(pool.get("endpoints")).hasSize(2);
    assertThat(pool.get("endpoints").get(0).get("url").asText())
        .as("stored without its trailing /")
        .isEqualTo("http://10.0.0.7:8080");
    assertThat(pool.get("endpoints").get(0).get("online").asBoolean()).isTrue();

    String drain = "{\"url\":\"http://10.0.0.7:8080\",\"reason\":\"deploy\"}";
    assertThat(post("/api/v1/pools/render/drain", OPERATOR, drain, 200).get("change").asText())
        .isEqualTo("CHANGED");
    assertThat(post("/api/v1/pools/render/drain", OPERATOR, drain, 200).get("change").asText())
        .isEqualTo("UNCHANGED");
    assertThat(get("/api/v1/pools", OPERATOR, 200).get("pools").toString()).contains("DRAINING");
    post("/api/v1/pools/render/undrain", OPERATOR, drain, 200);
    post(
        "/api/v1/pools/render/remove",
        OPERATOR,
        "{\"url\":\"http://10.0.0.8:8080\",\"reason\":\"gone\"}",
        200);
    assertError(
        post(
            "/api/v1/pools/render/drain",
            OPERATOR,
            "{\"url\":\"http://10.0.0.8:8080\",\"reason\":\"x\"}",
            404),
        "not_found");
    assertError(post("/api/v1/pools/nope/heartbeat", BEAT, beat, 404), "not_found");

    List<String> audited =
        new OperatorLog(store.runtime().dataSource())
            .newest(null, 50).stream()
                .filter(e -> e.action().startsWith("pool."))
                .map(e -> e.actor() + " " + e.action() + " " + e.target())
                .toList();
    assertThat(audited)
        .containsExactly(
            "olga pool.remove render http://10.0.0.8:8080",
            "olga pool.undrain render http://10.0.0.7:8080",
            "olga pool.drain render http://10.0.0.7:8080",
            "olga pool.register render http://10.0.0.8:8080",
            "beat pool.register render http://10.0.0.7:8080",
            "olga pool.create render LEAST_BUSY offline-after 5000ms");
    post("/api/v1/pools/render/remove", OPERATOR, "{\"reason\":\"done\"}", 200);
    assertError(get("/api/v1/pools/render", OPERATOR, 404), "not_found");
  }

  @Test
  void theHeartbeatRoleReachesOnlyTheHeartbeatAndScopedTokensChangeNoPool() throws Exception {
    post("/api/v1/pools/roles", OPERATOR, "{\"reason\":\"roles\"}", 200);
    String beat = "{\"url\":\"http://10.0.0.9:8080\"}";
    assertError(get("/api/v1/pools", BEAT, 403), "forbidden");
    post(
        "/api/v1/pools/elsewhere",
        OPERATOR,
        "{\"reason\":\"a pool the token does not name\"}",
        200);
    assertError(post("/api/v1/pools/elsewhere/heartbeat", BEAT, beat, 403), "forbidden");
    assertError(get("/api/v1/tasks", BEAT, 403), "forbidden");
    assertError(post("/api/v1/pools/roles", BEAT, "{\"reason\":\"x\"}", 403), "forbidden");
    assertError(post("/api/v1/pools/roles/heartbeat", ApiFixtures.READER, beat, 403), "forbidden");
    assertError(post("/api/v1/pools/roles/heartbeat", ApiFixtures.BILLING, beat, 403), "forbidden");
    assertError(
        post("/api/v1/pools/roles", ApiFixtures.BILLING, "{\"reason\":\"x\"}", 403), "forbidden");

    assertError(post("/api/v1/pools/Bad_Name", OPERATOR, "{\"reason\":\"x\"}", 400), "bad_request");
    for (String url :
        List.of("ftp://h/x", "http://u:p@h:1", "http://h:1/?q=1", "not a url", "http://")) {
      assertError(
          post(
              "/api/v1/pools/roles/heartbeat",
              BEAT,
              AxJson.MAPPER.createObjectNode().put("url", url).toString(),
              400),
          "bad_request");
    }
    for (int i = 0; i < PoolStore.MAX_ENDPOINTS_PER_POOL; i++) {
      post("/api/v1/pools/roles/heartbeat", BEAT, "{\"url\":\"http://10.1.0." + i + ":80\"}", 200);
    }
    assertError(
        post("/api/v1/pools/roles/heartbeat", BEAT, "{\"url\":\"http://10.2.0.1:80\"}", 409),
        "full");
    post("/api/v1/pools/roles/remove", OPERATOR, "{\"reason\":\"done\"}", 200);
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

  private static void assertError(JsonNode body, String code) {
    assertThat(body.get("code").asText()).as(body.toString()).isEqualTo(code);
  }
}
