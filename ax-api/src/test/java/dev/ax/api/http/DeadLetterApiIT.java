package dev.ax.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.api.write.DeadLetterActions;
import dev.ax.common.contract.AxJson;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.model.DeadLetterState;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.testing.StoreFixture;
import dev.ax.deadletter.DeadLetterReplayer;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Dead letters through the API over a real database and broker: listed and shown masked, replayed
 * (the instance runs again) and discarded with a reason, each audited under the token's name; what
 * cannot be done is refused with its code.
 */
@ExtendWith(AxInfraExtension.class)
class DeadLetterApiIT {

  private static final String OPERATOR = ApiFixtures.OPERATOR;
  private static final String READER = ApiFixtures.READER;

  @RegisterExtension final StoreFixture store;

  private final HttpClient http = HttpClient.newHttpClient();
  private final KafkaProducer<String, byte[]> producer;
  private final ApiServer api;

  DeadLetterApiIT(AxTestEnv env) {
    store = StoreFixture.open(env);
    producer = KafkaClients.producer(store.runtime().kafka(), "dlq-api-test");
    DeadLetterStore letters = new DeadLetterStore(store.runtime().dataSource());
    OperatorLog log = new OperatorLog(store.runtime().dataSource());
    DeadLetterActions actions =
        new DeadLetterActions(
            letters,
            new DeadLetterReplayer(letters, store.instances(), producer, store.runtime().topics()),
            log,
            System::currentTimeMillis);
    api =
        ApiServer.start(
            new ApiSettings("127.0.0.1", 0, Optional.of(ApiFixtures.tokens()), 64 * 1024, 100),
            new ApiBackends(store.runtime().dataSource(), null, actions, null, null));
  }

  @AfterEach
  void stop() {
    api.close();
    producer.close();
  }

  @Test
  void aDeadLetterIsShownMaskedReplayedOrDiscardedWithAReason() throws Exception {
    long first = ApiFixtures.deadLetterOf(store, "dead-1");
    long second = ApiFixtures.deadLetterOf(store, "dead-2");

    JsonNode list = call("GET", "/api/v1/deadletters?state=open", READER, null, 200);
    assertThat(list.get("deadLetters")).hasSize(2);
    assertThat(list.at("/deadLetters/0/id").asLong()).as("newest first").isEqualTo(second);
    assertThat(list.at("/deadLetters/0/attemptCount").asInt()).isEqualTo(2);
    JsonNode shown = call("GET", "/api/v1/deadletters/" + first, READER, null, 200);
    assertThat(shown.at("/task/params/password").asText()).isEqualTo("****");
    assertThat(shown.get("lastStack").asText()).contains("at Worker.run");
    assertThat(shown.get("attempts")).hasSize(2);

    call("POST", "/api/v1/deadletters/" + first + "/replay", READER, "{\"reason\":\"x\"}", 403);
    JsonNode replayed =
        call(
            "POST",
            "/api/v1/deadletters/" + first + "/replay",
            OPERATOR,
            "{\"reason\":\"fixed\"}",
            200);
    assertThat(replayed.get("result").asText()).isEqualTo("REPLAYED");
    InstanceRow instance = store.instances().find("dead-1@1000").orElseThrow();
    assertThat(instance.status()).as("runs again").isEqualTo(InstanceStatus.DISPATCHED);
    assertThat(
            call(
                    "POST",
                    "/api/v1/deadletters/" + first + "/replay",
                    OPERATOR,
                    "{\"reason\":\"again\"}",
                    409)
                .get("code")
                .asText())
        .isEqualTo("not_open");

    JsonNode discarded =
        call(
            "POST",
            "/api/v1/deadletters/" + second + "/discard",
            OPERATOR,
            "{\"reason\":\"obsolete\"}",
            200);
    assertThat(discarded.get("result").asText()).isEqualTo("DISCARDED");
    assertThat(new DeadLetterStore(store.runtime().dataSource()).find(second).orElseThrow().state())
        .isEqualTo(DeadLetterState.DISCARDED);
    assertThat(
            call(
                    "POST",
                    "/api/v1/deadletters/" + second + "/discard",
                    OPERATOR,
                    "{\"reason\":\"x\"}",
                    409)
                .get("code")
                .asText())
        .isEqualTo("not_open");
    assertThat(
            call("POST", "/api/v1/deadletters/999999/discard", OPERATOR, "{\"reason\":\"x\"}", 404)
                .get("code")
                .asText())
        .isEqualTo("not_found");
    assertThat(call("GET", "/api/v1/deadletters/abc", READER, null, 400).get("code").asText())
        .isEqualTo("bad_request");
    call("POST", "/api/v1/deadletters/" + second + "/discard", OPERATOR, "{}", 400);

    List<OperatorLog.Entry> audit =
        new OperatorLog(store.runtime().dataSource()).newest("olga", 10);
    assertThat(audit)
        .extracting(OperatorLog.Entry::action, OperatorLog.Entry::target, OperatorLog.Entry::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("dlq discard", "dead letter " + second, "obsolete"),
            org.assertj.core.groups.Tuple.tuple("dlq replay", "dead letter " + first, "fixed"));
  }

  private JsonNode call(String method, String path, String token, String body, int status)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as("%s %s: %s", method, path, answer.body()).isEqualTo(status);
    return AxJson.MAPPER.readTree(answer.body());
  }
}
