package dev.ax.deadletter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay over real HTTP on loopback: a recorded Alertmanager payload reaches the receiver's
 * robot in its format; a bad request of each kind gets its own 4xx (400, 401, 404, 405, 413, 415)
 * with a JSON reason, is counted, and leaves the relay serving the next good one.
 */
class AlertRelayTest {

  private static final String TOKEN = "relay-token-0123456789";
  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private RobotReceiver robots;
  private AlertRelay relay;

  @BeforeEach
  void start() throws IOException {
    robots = new RobotReceiver();
    AlertRelayConfig config =
        new AlertRelayConfig(
            Optional.of(new InetSocketAddress("127.0.0.1", 0)),
            Map.of(
                "page", new AlertRelayConfig.Target(robots.url("/wecom"), AlertFormat.WECOM),
                "chat", new AlertRelayConfig.Target(robots.url("/slack"), AlertFormat.SLACK)),
            Optional.empty(),
            Optional.of(TOKEN),
            10);
    relay = new AlertRelay(config, meters);
  }

  @AfterEach
  void stop() {
    relay.close();
    robots.close();
  }

  @Test
  void aPayloadReachesItsReceiversRobotInItsFormat() throws Exception {
    HttpResponse<String> response = post("/alerts/page", payload(), "application/json", TOKEN);
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(post("/alerts/chat", payload(), "application/json", TOKEN).statusCode())
        .isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> robots.all().size() == 2);
    assertThat(robots.bodies("/wecom").get(0).path("msgtype").asText()).isEqualTo("markdown");
    assertThat(robots.bodies("/wecom").get(0).path("markdown").path("content").asText())
        .startsWith("**AX alert \\[FIRING:2\\] AxStageDown");
    assertThat(robots.bodies("/slack").get(0).path("text").asText())
        .isEqualTo("AX alert [FIRING:2] AxStageDown (page)");
    assertThat(robots.all()).allMatch(r -> r.contentType().startsWith("application/json"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> meters.counter("ax.alert.relay.sent").count() == 2);
  }

  @Test
  void eachBadRequestGetsItsOwnAnswerAndTheRelayKeepsServing() throws Exception {
    byte[] payload = payload();
    assertAnswer(post("/alerts/page", payload, "application/json", null), 401);
    assertAnswer(post("/alerts/page", payload, "application/json", "x".repeat(22)), 401);
    assertAnswer(post("/alerts/nobody", payload, "application/json", TOKEN), 404);
    assertAnswer(post("/alerts/../page", payload, "application/json", TOKEN), 404);
    assertAnswer(post("/other", payload, "application/json", TOKEN), 404);
    assertAnswer(post("/alerts/page", payload, "text/plain", TOKEN), 415);
    assertAnswer(post("/alerts/page", "{not json".getBytes(), "application/json", TOKEN), 400);
    HttpResponse<String> noAlerts =
        post(
            "/alerts/page",
            "{\"status\":\"firing\",\"alerts\":[]}".getBytes(),
            "application/json",
            TOKEN);
    assertAnswer(noAlerts, 400);
    assertThat(noAlerts.body()).contains("alerts must be a non-empty array");
    byte[] huge = new byte[AlertRelay.MAX_REQUEST_BYTES + 10];
    assertAnswer(post("/alerts/page", huge, "application/json", TOKEN), 413);
    HttpResponse<String> get =
        CLIENT.send(
            HttpRequest.newBuilder(relayUrl("/alerts/page")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertAnswer(get, 405);
    assertThat(get.headers().firstValue("Allow")).contains("POST");
    assertThat(meters.counter("ax.alert.relay.refused").count()).isEqualTo(10);

    assertThat(post("/alerts/page", payload, "application/json", TOKEN).statusCode())
        .isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> robots.bodies("/wecom").size() == 1);
    assertThat(robots.all()).hasSize(1);
  }

  private static void assertAnswer(HttpResponse<String> response, int status) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
    assertThat(response.body()).contains("\"code\":\"http_" + status + "\"", "\"message\"");
  }

  private HttpResponse<String> post(String path, byte[] body, String contentType, String token)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(relayUrl(path))
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private URI relayUrl(String path) {
    return URI.create("http://127.0.0.1:" + relay.address().getPort() + path);
  }

  static byte[] payload() throws IOException {
    try (InputStream in =
        AlertRelayTest.class.getResourceAsStream("/relay/alertmanager-payload.json")) {
      return in.readAllBytes();
    }
  }
}
