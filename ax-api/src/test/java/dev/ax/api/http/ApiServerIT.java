package dev.ax.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.api.kafka.CommandSender;
import dev.ax.api.write.DeadLetterActions;
import dev.ax.api.write.SwitchBoard;
import dev.ax.api.write.TaskCommands;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.SwitchStore;
import dev.ax.common.testing.StoreFixture;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.testing.TopicReader;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The API's task reads, errors and access over a real database: listing with filters, paging and
 * totals; a task with its masked spec and an instance with its history; every route in the OpenAPI
 * document and every documented route answering; tokens and roles; the rate per client.
 */
@ExtendWith(AxInfraExtension.class)
class ApiServerIT {

  private static final String OPERATOR = ApiFixtures.OPERATOR;
  private static final String READER = ApiFixtures.READER;

  @RegisterExtension final StoreFixture store;

  private final HttpClient http = HttpClient.newHttpClient();
  private final List<ApiServer> servers = new ArrayList<>();
  private final AxTestEnv env;
  private final CommandSender sender;

  ApiServerIT(AxTestEnv env) {
    this.env = env;
    store = StoreFixture.open(env);
    sender = CommandSender.open(store.runtime().kafka(), "api-test");
  }

  @BeforeEach
  void seed() {
    long dueAtMs = System.currentTimeMillis() + 3_600_000;
    List<NewTask> tasks = new ArrayList<>();
    tasks.add(
        new NewTask(
            TestTasks.spec(
                "api-a",
                "billing",
                Trigger.Once.after(Duration.ofHours(1)),
                ExecutorSpec.inProcess("noop"),
                Duration.ofSeconds(5),
                RetryPolicy.DEFAULT,
                Map.of("password", "hunter2")),
            "trace-api-a",
            dueAtMs));
    tasks.add(TestTasks.newTask("api-b", dueAtMs));
    tasks.add(TestTasks.newTask("other_1", dueAtMs));
    tasks.add(TestTasks.newTask("billing~api-c", dueAtMs));
    store.tasks().create(tasks, "test", System.currentTimeMillis());
  }

  @AfterEach
  void stop() {
    servers.forEach(ApiServer::close);
    sender.close();
  }

  @Test
  void aChangeIsSentAsTheCliSendsItByTheTokensNameAndAudited() throws Exception {
    ApiTokens tokens = ApiFixtures.tokens();
    ApiServer api = start(Optional.of(tokens), 50);
    JsonNode sent =
        post(
            api,
            "/api/v1/tasks/api-a/pause",
            OPERATOR,
            "{\"reason\":\"maintenance\",\"commandId\":\"p-1\"}",
            202);
    assertThat(sent.get("commandId").asText()).isEqualTo("p-1");
    assertThat(sent.get("topic").asText()).isEqualTo(store.runtime().topics().commands());
    JsonNode group =
        post(api, "/api/v1/groups/billing/resume", OPERATOR, "{\"reason\":\"done\"}", 202);
    assertThat(group.get("commandId").asText()).startsWith("ax-");
    post(
        api,
        "/api/v1/tasks/api-b/cancel",
        OPERATOR,
        "{\"reason\":\"wrong\",\"interrupt\":true}",
        202);

    try (TopicReader commands =
        new TopicReader(env.bootstrapServers(), store.runtime().topics().commands())) {
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> commands.poll().size() == 3);
      Map<String, JsonNode> byType = new java.util.HashMap<>();
      Map<String, String> keys = new java.util.HashMap<>();
      for (var record : commands.poll()) {
        JsonNode command = AxJson.MAPPER.readTree(record.value());
        byType.put(command.get("type").asText(), command);
        keys.put(command.get("type").asText(), record.key());
      }
      assertThat(byType.get("PAUSE").get("taskId").asText()).isEqualTo("api-a");
      assertThat(byType.get("PAUSE").get("commandId").asText()).isEqualTo("p-1");
      assertThat(byType.get("PAUSE").get("reason").asText()).isEqualTo("maintenance (by olga)");
      assertThat(keys.get("RESUME"))
          .as("a group's command is keyed by the group")
          .isEqualTo("billing");
      assertThat(byType.get("RESUME").get("group").asText()).isEqualTo("billing");
      assertThat(byType.get("CANCEL").get("interrupt").asBoolean()).isTrue();
    }
    List<OperatorLog.Entry> audit =
        new OperatorLog(store.runtime().dataSource()).newest("olga", 10);
    assertThat(audit)
        .extracting(OperatorLog.Entry::action)
        .containsExactly("task cancel", "task resume", "task pause");
    assertThat(audit.get(2).reason()).isEqualTo("maintenance (by olga) [commandId p-1]");

    assertError(
        post(api, "/api/v1/tasks/api-a/resume", READER, "{\"reason\":\"x\"}", 403),
        "forbidden",
        "read role");
    assertError(
        post(api, "/api/v1/tasks/api-a/resume", OPERATOR, "{}", 400),
        "bad_request",
        "needs a reason");
    assertError(
        post(api, "/api/v1/tasks/api-a/resume", OPERATOR, "", 400), "bad_request", "JSON body");
    assertError(
        post(api, "/api/v1/tasks/api-a/resume", OPERATOR, "[1]", 400),
        "bad_request",
        "one JSON object");
    assertError(
        post(api, "/api/v1/tasks/api-a/resume", OPERATOR, "{\"reason\":\"x\",\"force\":1}", 400),
        "bad_request",
        "unknown field force");
    assertError(
        post(
            api,
            "/api/v1/tasks/api-a/resume",
            OPERATOR,
            "{\"reason\":\"x\",\"interrupt\":true}",
            400),
        "bad_request",
        "cancel and delete only");
    assertError(
        post(
            api,
            "/api/v1/tasks/api-a/resume",
            OPERATOR,
            "{\"reason\":\"x\",\"commandId\":\"a b\"}",
            400),
        "bad_request",
        "command id must match");
    assertError(
        post(
            api,
            "/api/v1/tasks/api-a/resume",
            OPERATOR,
            "{\"reason\":\"" + "x".repeat(70_000) + "\"}",
            413),
        "payload_too_large",
        null);
    assertError(
        send(api, "/api/v1/tasks/api-a/resume", "text/plain", null, "{\"reason\":\"x\"}", 415),
        "unsupported_media_type",
        "application/json");
    assertError(
        send(
            api,
            "/api/v1/tasks/api-a/resume",
            "application/json",
            "http://evil.example",
            "{\"reason\":\"x\"}",
            403),
        "cross_origin",
        null);
    assertThat(new OperatorLog(store.runtime().dataSource()).newest(null, 100))
        .as("nothing refused was audited")
        .hasSize(3);
  }

  @Test
  void tasksAreListedFilteredAndPagedWithTotals() throws Exception {
    ApiServer api = start(Optional.empty(), 50);
    JsonNode all = get(api, "/api/v1/tasks", null, 200);
    assertThat(ids(all)).containsExactly("api-a", "api-b", "other_1");
    assertThat(all.get("total").asLong()).isEqualTo(3);
    assertThat(all.get("totalIsAtLeast").asBoolean()).isFalse();
    assertThat(all.get("next").isNull()).isTrue();

    JsonNode first = get(api, "/api/v1/tasks?limit=2", null, 200);
    assertThat(ids(first)).containsExactly("api-a", "api-b");
    assertThat(first.get("total").asLong()).as("the total counts every page").isEqualTo(3);
    JsonNode second =
        get(api, "/api/v1/tasks?limit=2&after=" + first.get("next").asText(), null, 200);
    assertThat(ids(second)).containsExactly("other_1");
    assertThat(second.get("next").isNull()).isTrue();

    assertThat(ids(get(api, "/api/v1/tasks?text=api", null, 200)))
        .containsExactly("api-a", "api-b");
    assertThat(ids(get(api, "/api/v1/tasks?text=r_", null, 200)))
        .as("_ matches itself, not any character")
        .containsExactly("other_1");
    assertThat(ids(get(api, "/api/v1/tasks?group=billing", null, 200))).containsExactly("api-a");
    assertThat(ids(get(api, "/api/v1/tasks?state=active&trigger=ONCE", null, 200))).hasSize(3);
    assertThat(ids(get(api, "/api/v1/tasks?state=PAUSED", null, 200))).isEmpty();
    assertThat(ids(get(api, "/api/v1/tasks?lastStatus=SCHEDULED", null, 200))).hasSize(3);

    assertError(get(api, "/api/v1/tasks?state=bogus", null, 400), "bad_request", "state must be");
    assertError(get(api, "/api/v1/tasks?limit=0", null, 400), "bad_request", "limit must be");
    assertError(get(api, "/api/v1/tasks?limit=x", null, 400), "bad_request", "limit must be");
    assertError(
        get(api, "/api/v1/tasks?text=" + "x".repeat(201), null, 400), "bad_request", "text is");
  }

  @Test
  void aTaskShowsItsMaskedSpecAndRunsAndAnInstanceItsHistory() throws Exception {
    ApiServer api = start(Optional.empty(), 50);
    JsonNode task = get(api, "/api/v1/tasks/api-a", null, 200);
    assertThat(task.get("state").asText()).isEqualTo("ACTIVE");
    assertThat(task.at("/spec/params/password").asText()).isEqualTo("****");
    assertThat(task.get("nextFiringAt").asText()).endsWith("Z");
    assertThat(task.get("instances")).hasSize(1);
    String instanceId = task.at("/instances/0/instanceId").asText();
    assertThat(task.at("/instances/0/status").asText()).isEqualTo("SCHEDULED");

    JsonNode instance = get(api, "/api/v1/tasks/api-a/instances/" + instanceId, null, 200);
    assertThat(instance.at("/instance/instanceId").asText()).isEqualTo(instanceId);
    assertThat(instance.get("history")).isNotEmpty();
    assertThat(instance.at("/history/0/to").asText()).isEqualTo("SCHEDULED");

    assertError(get(api, "/api/v1/tasks/nope", null, 404), "not_found", "no task nope");
    assertError(
        get(api, "/api/v1/tasks/api-b/instances/" + instanceId, null, 404),
        "not_found",
        "no instance");
    assertError(get(api, "/api/v1/nothing", null, 404), "no_route", null);
  }

  @Test
  void aCronTaskShowsItsNextFiveFirings() throws Exception {
    long minute = 60_000;
    long next = (System.currentTimeMillis() / minute + 2) * minute;
    store
        .tasks()
        .create(
            List.of(
                new NewTask(
                    TestTasks.noop(
                        "every-minute",
                        new Trigger.Cron("0 * * * * ?", java.time.ZoneId.of("UTC"))),
                    "t-m",
                    next)),
            "test",
            System.currentTimeMillis());
    ApiServer api = start(Optional.empty(), 50);
    JsonNode firings = get(api, "/api/v1/tasks/every-minute", null, 200).get("nextFirings");
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      expected.add(java.time.Instant.ofEpochMilli(next + i * minute).toString());
    }
    assertThat(firings).extracting(JsonNode::asText).containsExactlyElementsOf(expected);
    assertThat(get(api, "/api/v1/tasks/api-b", null, 200).get("nextFirings"))
        .as("a one-shot task: its one firing")
        .hasSize(1);
  }

  @Test
  void aFlowRunIsAGraphOfItsTasksRunsAndWhatTheyWaitFor() throws Exception {
    String flowRunId = ApiFixtures.flowOf(store);
    ApiServer api = start(Optional.empty(), 50);
    JsonNode flow = get(api, "/api/v1/flows/" + flowRunId, null, 200);
    Map<String, JsonNode> nodes = new java.util.HashMap<>();
    flow.get("nodes").forEach(n -> nodes.put(n.get("taskId").asText(), n));
    assertThat(nodes).containsOnlyKeys("extract", "load", "report");
    assertThat(nodes.get("extract").get("status").asText()).isEqualTo("SUCCESS");
    assertThat(nodes.get("extract").get("instanceId").asText()).isEqualTo(flowRunId);
    assertThat(nodes.get("report").get("waitsOn"))
        .extracting(JsonNode::asText)
        .containsExactly("load");
    List<String> edges = new ArrayList<>();
    flow.get("edges").forEach(e -> edges.add(e.get("from").asText() + ">" + e.get("to").asText()));
    assertThat(edges).containsExactlyInAnyOrder("extract>load", "extract>report", "load>report");
    assertError(get(api, "/api/v1/flows/nope", null, 404), "not_found", "no flow run nope");
  }

  @Test
  void everyRouteIsDocumentedAndEveryDocumentedRouteAnswers() throws Exception {
    ApiServer api = start(Optional.empty(), 50);
    JsonNode paths = get(api, "/api/v1/openapi.json", null, 200).get("paths");
    List<String> documented = new ArrayList<>();
    for (Iterator<String> names = paths.fieldNames(); names.hasNext(); ) {
      String path = names.next();
      paths
          .get(path)
          .fieldNames()
          .forEachRemaining(m -> documented.add(m.toUpperCase() + " " + path));
    }
    List<String> served = api.routes().stream().map(r -> r.method() + " " + r.path()).toList();
    assertThat(documented).containsExactlyInAnyOrderElementsOf(served);
    for (String route : documented) {
      String path = route.substring(route.indexOf(' ') + 1).replaceAll("\\{[^}]+}", "x");
      HttpResponse<String> answer =
          http.send(
              HttpRequest.newBuilder(uri(api, path))
                  .method(
                      route.substring(0, route.indexOf(' ')), HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(AxJson.MAPPER.readTree(answer.body()).path("code").asText())
          .as("%s answers (%d %s)", route, answer.statusCode(), answer.body())
          .isNotIn("no_route", "method_not_allowed");
    }
  }

  @Test
  void aSwitchIsShownAndFlippedWithAReasonAndTheAuditListsIt() throws Exception {
    ApiTokens tokens = ApiFixtures.tokens();
    ApiServer api = start(Optional.of(tokens), 50);
    JsonNode before = get(api, "/api/v1/switches", READER, 200).get("switches");
    assertThat(before.get(2).get("name").asText()).isEqualTo("retries");
    assertThat(before.get(2).get("neverSet").asBoolean()).isTrue();
    assertThat(before.get(2).get("value").asText()).isEqualTo("on");

    JsonNode flipped =
        post(
            api,
            "/api/v1/switches/retries",
            OPERATOR,
            "{\"value\":\"OFF\",\"reason\":\"storm\"}",
            200);
    assertThat(flipped.get("changed").asBoolean()).isTrue();
    assertThat(
            post(
                    api,
                    "/api/v1/switches/retries",
                    OPERATOR,
                    "{\"value\":\"off\",\"reason\":\"again\"}",
                    200)
                .get("changed")
                .asBoolean())
        .isFalse();
    JsonNode retries = get(api, "/api/v1/switches", READER, 200).at("/switches/2");
    assertThat(retries.get("value").asText()).isEqualTo("off");
    assertThat(retries.get("version").asLong()).isEqualTo(1);
    assertThat(retries.get("setBy").asText()).isEqualTo("ax switch (olga)");
    assertError(
        post(
            api,
            "/api/v1/switches/everything",
            OPERATOR,
            "{\"value\":\"off\",\"reason\":\"x\"}",
            400),
        "bad_request",
        "unknown switch 'everything'");
    assertError(
        post(
            api,
            "/api/v1/switches/intake",
            OPERATOR,
            "{\"value\":\"maybe\",\"reason\":\"x\"}",
            400),
        "bad_request",
        "takes one of [on, off]");
    post(api, "/api/v1/switches/intake", READER, "{\"value\":\"off\",\"reason\":\"x\"}", 403);

    JsonNode audit = get(api, "/api/v1/audit?actor=olga", READER, 200).get("entries");
    assertThat(audit).hasSize(1);
    assertThat(audit.at("/0/action").asText()).isEqualTo("switch");
    assertThat(audit.at("/0/reason").asText()).isEqualTo("set to off: storm");
    assertThat(audit.at("/0/at").asText()).endsWith("Z");
  }

  @Test
  void withTokensEveryRequestNeedsOneAndRevealingNeedsTheOperateRole() throws Exception {
    ApiTokens tokens = ApiFixtures.tokens();
    ApiServer api = start(Optional.of(tokens), 50);
    assertError(get(api, "/api/v1/tasks", null, 401), "unauthorized", "Authorization");
    assertError(get(api, "/api/v1/tasks", "not-a-token-0123456789", 401), "unauthorized", null);
    assertThat(ids(get(api, "/api/v1/tasks", READER, 200))).hasSize(3);
    assertThat(get(api, "/api/v1/tasks/api-a", READER, 200).at("/spec/params/password").asText())
        .isEqualTo("****");
    assertError(
        get(api, "/api/v1/tasks/api-a?reveal=true", READER, 403), "forbidden", "operate role");
    assertThat(
            get(api, "/api/v1/tasks/api-a?reveal=true", OPERATOR, 200)
                .at("/spec/params/password")
                .asText())
        .isEqualTo("hunter2");
  }

  @Test
  void aTokenScopedToANamespaceReachesThatNamespaceOnly() throws Exception {
    new dev.ax.common.store.NamespaceStore(store.runtime().dataSource())
        .create(new dev.ax.common.model.Namespace("billing"), "test", 1L);
    ApiServer api = start(Optional.of(ApiFixtures.tokens()), 50);
    String bill = ApiFixtures.BILLING;
    assertError(get(api, "/api/v1/tasks", bill, 403), "forbidden", "namespace default");
    assertThat(ids(get(api, "/api/v1/tasks?namespace=billing", bill, 200)))
        .containsExactly("billing~api-c");
    assertThat(ids(get(api, "/api/v1/tasks", OPERATOR, 200))).doesNotContain("billing~api-c");
    JsonNode shown = get(api, "/api/v1/tasks/api-c?namespace=billing", bill, 200);
    assertThat(shown.at("/taskId").asText()).isEqualTo("billing~api-c");
    assertThat(shown.at("/namespace").asText()).isEqualTo("billing");
    assertThat(shown.at("/spec/taskId").asText())
        .as("the spec as the namespace's producers write it, to be sent back as an UPDATE")
        .isEqualTo("api-c");
    assertThat(shown.at("/spec/group").asText()).isEqualTo("default");
    get(api, "/api/v1/tasks/billing~api-c?namespace=billing", bill, 200);
    get(api, "/api/v1/tasks/api-a?namespace=billing", bill, 404);
    get(api, "/api/v1/tasks/billing~api-c", OPERATOR, 404);
    assertError(get(api, "/api/v1/tasks?namespace=Bad!", bill, 400), "bad_request", "namespace");
    assertError(get(api, "/api/v1/audit", bill, 403), "forbidden", "every namespace");
    assertThat(get(api, "/api/v1/namespaces", bill, 200).at("/namespaces/0/name").asText())
        .isEqualTo("billing");
    String reason = "{\"value\":\"off\",\"reason\":\"test\"}";
    assertError(
        post(api, "/api/v1/switches/intake?namespace=billing", bill, reason, 403),
        "forbidden",
        "intake.<namespace>");
    post(api, "/api/v1/switches/intake.billing?namespace=billing", bill, reason, 200);
    post(api, "/api/v1/switches/dispatch.shop~*", OPERATOR, reason, 200);
    assertThat(get(api, "/api/v1/switches", bill, 200).toString())
        .contains("intake.billing")
        .contains("\"intake\"")
        .doesNotContain("shop");
    assertError(
        post(api, "/api/v1/tasks/api-a/pause", bill, "{\"reason\":\"no\"}", 403),
        "forbidden",
        "namespace default");
  }

  @Test
  void aClientBeyondItsRateIsToldToWait() throws Exception {
    ApiServer api = start(Optional.empty(), 3);
    int refused = 0;
    for (int i = 0; i < 20; i++) {
      HttpResponse<String> answer =
          http.send(
              HttpRequest.newBuilder(uri(api, "/api/v1/openapi.json")).build(),
              HttpResponse.BodyHandlers.ofString());
      if (answer.statusCode() == 429) {
        refused++;
        assertThat(answer.headers().firstValue("Retry-After")).contains("1");
        assertError(AxJson.MAPPER.readTree(answer.body()), "too_many_requests", "3 requests");
      }
    }
    assertThat(refused).as("20 requests at 3 a second").isPositive();
  }

  private ApiServer start(Optional<ApiTokens> tokens, int ratePerSecond) {
    ApiServer api =
        ApiServer.start(
            new ApiSettings("127.0.0.1", 0, tokens, 64 * 1024, ratePerSecond),
            new ApiBackends(
                store.runtime().dataSource(),
                new TaskCommands(
                    sender,
                    store.runtime().topics(),
                    new OperatorLog(store.runtime().dataSource()),
                    System::currentTimeMillis),
                new DeadLetterActions(
                    new DeadLetterStore(store.runtime().dataSource()),
                    null,
                    new OperatorLog(store.runtime().dataSource()),
                    System::currentTimeMillis),
                new SwitchBoard(
                    new SwitchStore(store.runtime().dataSource()),
                    new OperatorLog(store.runtime().dataSource()),
                    System::currentTimeMillis),
                new dev.ax.api.read.MetricsSummary(List.of(), System::currentTimeMillis)));
    servers.add(api);
    return api;
  }

  private JsonNode get(ApiServer api, String path, String token, int status) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(api, path));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as("GET %s: %s", path, answer.body()).isEqualTo(status);
    assertThat(answer.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
    return AxJson.MAPPER.readTree(answer.body());
  }

  private JsonNode post(ApiServer api, String path, String token, String body, int status)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri(api, path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as("POST %s: %s", path, answer.body()).isEqualTo(status);
    return AxJson.MAPPER.readTree(answer.body());
  }

  /** A change as a browser page might send it, with the token of role operate. */
  private JsonNode send(
      ApiServer api, String path, String contentType, String origin, String body, int status)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri(api, path))
            .header("Content-Type", contentType)
            .header("Authorization", "Bearer " + OPERATOR)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (origin != null) {
      request.header("Origin", origin);
    }
    HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as("POST %s: %s", path, answer.body()).isEqualTo(status);
    return AxJson.MAPPER.readTree(answer.body());
  }

  private static URI uri(ApiServer api, String path) {
    return URI.create("http://127.0.0.1:" + api.port() + path);
  }

  private static List<String> ids(JsonNode page) {
    List<String> ids = new ArrayList<>();
    page.get("tasks").forEach(t -> ids.add(t.get("taskId").asText()));
    return ids;
  }

  private static void assertError(JsonNode body, String code, String messagePart) {
    assertThat(body.get("code").asText()).as(body.toString()).isEqualTo(code);
    if (messagePart != null) {
      assertThat(body.get("message").asText()).contains(messagePart);
    }
  }
}
