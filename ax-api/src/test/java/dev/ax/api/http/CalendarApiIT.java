package dev.ax.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.api.kafka.CommandSender;
import dev.ax.api.write.DeadLetterActions;
import dev.ax.api.write.SwitchBoard;
import dev.ax.api.write.TaskCommands;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.SwitchStore;
import dev.ax.common.testing.StoreFixture;
import dev.ax.common.testing.TestTasks;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The calendar routes and a task's next firings over a real database: create, show, list, update,
 * delete (refused while a live task names the calendar, naming it), each change audited; bad
 * calendars refused with the reason; calendars kept apart by namespace; {@code /tasks/{id}/next}
 * lists skipped firings with the calendar and bounds n.
 */
@ExtendWith(AxInfraExtension.class)
class CalendarApiIT {

  private static final String OPERATOR = ApiFixtures.OPERATOR;

  @RegisterExtension final StoreFixture store;

  private final HttpClient http = HttpClient.newHttpClient();
  private final CommandSender sender;
  private final ApiServer api;

  CalendarApiIT(AxTestEnv env) {
    store = StoreFixture.open(env);
    sender = CommandSender.open(store.runtime().kafka(), "calendar-api-test");
    ApiTokens tokens =
        ApiTokens.parse(
            List.of(
                OPERATOR + " olga operate",
                ApiFixtures.READER + " rita read *",
                ApiFixtures.BILLING + " bill operate billing"),
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

  private static final String CLOSED =
      "{\"calendar\":{\"zone\":\"Europe/Berlin\",\"dates\":[\"2026-12-25\"],"
          + "\"ranges\":[{\"from\":\"2026-12-27\",\"to\":\"2026-12-31\"}],"
          + "\"weekly\":[\"MON\",\"TUE\",\"WED\",\"THU\",\"FRI\",\"SAT\",\"SUN\"],"
          + "\"description\":\"always closed\"},\"reason\":\"test\"}";

  @Test
  void aCalendarIsCreatedShownUpdatedAndDeletedAndEachChangeIsAudited() throws Exception {
    assertThat(post("/api/v1/calendars/closed", OPERATOR, CLOSED, 200).get("change").asText())
        .isEqualTo("CREATED");
    assertError(post("/api/v1/calendars/closed", OPERATOR, CLOSED, 409), "exists");
    JsonNode shown = get("/api/v1/calendars/closed", ApiFixtures.READER, 200);
    assertThat(shown.get("zone").asText()).isEqualTo("Europe/Berlin");
    assertThat(shown.get("weekly")).hasSize(7);
    assertThat(shown.get("ranges").get(0).get("to").asText()).isEqualTo("2026-12-31");
    assertThat(shown.get("version").asLong()).isEqualTo(1);
    assertThat(
            post(
                    "/api/v1/calendars/closed/update",
                    OPERATOR,
                    "{\"calendar\":{\"zone\":\"UTC\",\"weekly\":[\"sun\"]},\"reason\":\"r\"}",
                    200)
                .get("change")
                .asText())
        .isEqualTo("CHANGED");
    JsonNode listed = get("/api/v1/calendars", OPERATOR, 200).get("calendars");
    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).get("weekly").toString()).isEqualTo("[\"SUN\"]");
    assertThat(listed.get(0).get("version").asLong()).isEqualTo(2);
    assertError(post("/api/v1/calendars/nope/update", OPERATOR, CLOSED, 404), "not_found");
    assertThat(
            post("/api/v1/calendars/closed/delete", OPERATOR, "{\"reason\":\"done\"}", 200)
                .get("change")
                .asText())
        .isEqualTo("DELETED");
    assertError(get("/api/v1/calendars/closed", OPERATOR, 404), "not_found");
    List<String> audited =
        new OperatorLog(store.runtime().dataSource())
            .newest(null, 50).stream()
                .filter(e -> e.action().startsWith("calendar."))
                .map(e -> e.actor() + " " + e.action() + " " + e.target())
                .toList();
    assertThat(audited)
        .containsExactly(
            "olga calendar.delete closed",
            "olga calendar.update closed UTC dates 0 ranges 0 weekly [SUN]",
            "olga calendar.create closed Europe/Berlin dates 1 ranges 1 weekly"
                + " [MON, TUE, WED, THU, FRI, SAT, SUN]");
  }

  @Test
  void badCalendarsAreRefusedWithTheReasonAndNamespacesAreApart() throws Exception {
    for (String[] bad :
        new String[][] {
          {"{\"zone\":\"UTC\",\"weekly\":[\"FUNDAY\"]}", "unknown day"},
          {"{\"zone\":\"Nowhere/Land\"}", "unknown time zone"},
          {"{\"zone\":\"UTC\",\"dates\":[\"2026-13-01\"]}", "not a date"},
          {"{\"zone\":\"UTC\",\"ranges\":[\"2026-12-31..2026-12-01\"]}", "ends before"}
        }) {
      JsonNode refused =
          post(
              "/api/v1/calendars/bad",
              OPERATOR,
              "{\"calendar\":" + bad[0] + ",\"reason\":\"r\"}",
              400);
      assertThat(refused.get("message").asText()).contains(bad[1]);
    }
    assertError(post("/api/v1/calendars/has~tilde", OPERATOR, CLOSED, 400), "bad_request");
    post("/api/v1/calendars/closed?namespace=billing", ApiFixtures.BILLING, CLOSED, 200);
    assertError(post("/api/v1/calendars/closed", ApiFixtures.BILLING, CLOSED, 403), "forbidden");
    assertThat(get("/api/v1/calendars", OPERATOR, 200).get("calendars")).isEmpty();
    JsonNode billing = get("/api/v1/calendars?namespace=billing", ApiFixtures.BILLING, 200);
    assertThat(billing.get("calendars").get(0).get("name").asText()).isEqualTo("closed");
    assertThat(billing.get("calendars").get(0).get("namespace").asText()).isEqualTo("billing");
    assertError(post("/api/v1/calendars/x", ApiFixtures.READER, CLOSED, 403), "forbidden");
  }

  @Test
  void aCalendarALiveTaskNamesIsKeptAndItsSkipsShowInTheNextFirings() throws Exception {
    post("/api/v1/calendars/closed", OPERATOR, CLOSED, 200);
    long nowMs = System.currentTimeMillis();
    Trigger noon = new Trigger.Cron("0 0 12 * * ?", ZoneOffset.UTC);
    var spec = TestTasks.noop("daily", noon);
    spec = spec.withRules(spec.rules().withCalendars(List.of("closed")));
    long firstMs =
        new dev.ax.common.schedule.FireTimes()
            .first(noon, java.time.Instant.ofEpochMilli(nowMs))
            .orElseThrow()
            .toEpochMilli();
    store.tasks().create(List.of(new NewTask(spec, "trace-daily", firstMs)), "test", nowMs);

    JsonNode refused = post("/api/v1/calendars/closed/delete", OPERATOR, "{\"reason\":\"x\"}", 409);
    assertError(refused, "in_use");
    assertThat(refused.get("message").asText()).contains("daily");

    JsonNode next = get("/api/v1/tasks/daily/next?n=3", ApiFixtures.READER, 200);
    assertThat(next.get("firings")).hasSize(3);
    assertThat(next.get("firings").get(0).get("slotAtMs").asLong()).isEqualTo(firstMs);
    for (JsonNode firing : next.get("firings")) {
      assertThat(firing.get("skipped").asBoolean()).isTrue();
      assertThat(firing.get("reason").asText()).startsWith("calendar closed: excluded ");
    }
    assertError(get("/api/v1/tasks/daily/next?n=0", OPERATOR, 400), "bad_request");
    assertError(get("/api/v1/tasks/daily/next?n=1001", OPERATOR, 400), "bad_request");
    assertError(get("/api/v1/tasks/nope/next", OPERATOR, 404), "not_found");
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
