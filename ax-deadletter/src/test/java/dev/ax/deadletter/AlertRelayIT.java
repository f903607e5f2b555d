package dev.ax.deadletter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.common.contract.AxJson;
import dev.ax.common.testing.ExternalTool;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end through a real Alertmanager (Debian's {@code prometheus-alertmanager}; {@code .ci/run}
 * installs it, and this test skips with one line without it): Alertmanager runs with a generated
 * configuration that routes by {@code severity} to four receivers on AX's relay ({@code page} to
 * the Slack and WeCom ones, {@code ticket} to the DingTalk and generic ones, with a bearer token),
 * two alerts are posted to its API ({@code POST /api/v2/alerts}), and a local robot receives each
 * in the formats its severity routes to, in the shape of the recorded samples, and nothing else.
 * Then a dead letter goes to the same robot in each of the four formats through {@link
 * WebhookAlerter}, the real outbound HTTP path. Short group_wait and group_interval keep it to a
 * few seconds.
 */
class AlertRelayIT {

  private static final String TOKEN = "it-relay-token-0123456789";
  private static final HttpClient CLIENT = HttpClient.newHttpClient();
  private static final Duration DEADLINE = Duration.ofSeconds(20);
  private static final List<AlertFormat> FORMATS = List.of(AlertFormat.values());

  @Test
  void alertsPostedToAlertmanagerReachTheRobotsOfTheirSeverityInEachFormat(@TempDir Path dir)
      throws Exception {
    Optional<Path> alertmanager = ExternalTool.onPath("prometheus-alertmanager");
    assumeTrue(
        alertmanager.isPresent(),
        "prometheus-alertmanager not found on PATH (Debian package prometheus-alertmanager):"
            + " relay end-to-end test skipped");
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (RobotReceiver robots = new RobotReceiver();
        AlertRelay relay = new AlertRelay(relayConfig(robots), meters)) {
      int port = freePort();
      Path config = dir.resolve("alertmanager.yml");
      Files.writeString(config, alertmanagerConfig(relay.address().getPort()));
      Process process =
          new ProcessBuilder(
                  alertmanager.get().toString(),
                  "--config.file=" + config,
                  "--storage.path=" + dir.resolve("data"),
                  "--web.listen-address=127.0.0.1:" + port,
                  "--cluster.listen-address=")
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("alertmanager.log").toFile())
              .start();
      try {
        URI api = URI.create("http://127.0.0.1:" + port);
        await("Alertmanager ready (log: " + dir.resolve("alertmanager.log") + ")")
            .atMost(DEADLINE)
            .ignoreExceptions()
            .until(() -> get(api.resolve("/-/ready")) == 200);
        HttpResponse<String> posted =
            CLIENT.send(
                HttpRequest.newBuilder(api.resolve("/api/v2/alerts"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(alerts()))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(posted.statusCode()).as(posted.body()).isEqualTo(200);

        await("every robot gets its message")
            .atMost(DEADLINE)
            .until(() -> FORMATS.stream().allMatch(f -> !robots.bodies(path(f)).isEmpty()));
        assertThat(text(robots, AlertFormat.SLACK))
            .contains("AxStageDown")
            .doesNotContain("AxRetentionBehind");
        assertThat(text(robots, AlertFormat.WECOM))
            .contains("AxStageDown")
            .doesNotContain("AxRetentionBehind");
        assertThat(text(robots, AlertFormat.DINGTALK))
            .contains("AxRetentionBehind")
            .doesNotContain("AxStageDown");
        assertThat(text(robots, AlertFormat.GENERIC))
            .contains("AxRetentionBehind")
            .doesNotContain("AxStageDown");
        for (AlertFormat format : FORMATS) {
          AlertGroupMessageTest.assertSameShape(
              format.name(), sample(format), robots.bodies(path(format)).get(0));
        }
        assertThat(
                robots
                    .bodies("/generic")
                    .get(0)
                    .path("alerts")
                    .get(0)
                    .path("labels")
                    .path("severity")
                    .asText())
            .isEqualTo("ticket");
        assertThat(meters.counter("ax.alert.relay.refused").count()).isZero();
      } finally {
        process.destroy();
        process.waitFor();
      }

      deadLettersInEachFormat(robots);
    }
  }

  /** A dead letter, through WebhookAlerter's real HTTP path, in each format. */
  private static void deadLettersInEachFormat(RobotReceiver robots) {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    for (AlertFormat format : FORMATS) {
      try (WebhookAlerter alerter =
          new WebhookAlerter(robots.url("/dead/" + format), format, 60, meters)) {
        Map<String, Object> alert = new LinkedHashMap<>();
        alert.put("event", "ax.deadletter");
        alert.put("instanceId", "invoice@1");
        alert.put("taskId", "invoice");
        alert.put("group", "billing");
        alert.put("attempts", 3);
        alert.put("error", "HTTP 503 <!channel>");
        alert.put("reason", "retries exhausted");
        alert.put("traceId", "t-1");
        alert.put("atMs", 1L);
        alerter.alert(alert, 0);
        await().atMost(DEADLINE).until(() -> robots.bodies("/dead/" + format).size() == 1);
      }
      String body = robots.bodies("/dead/" + format).get(0).toString();
      assertThat(body).contains(format == AlertFormat.GENERIC ? "ax.deadletter" : "AX dead letter");
    }
    assertThat(meters.counter("ax.deadletter.alerts.sent").count()).isEqualTo(FORMATS.size());
  }

  private static AlertRelayConfig relayConfig(RobotReceiver robots) {
    Map<String, AlertRelayConfig.Target> receivers = new LinkedHashMap<>();
    for (AlertFormat format : FORMATS) {
      receivers.put(
          format.name().toLowerCase(),
          new AlertRelayConfig.Target(robots.url(path(format)), format));
    }
    return new AlertRelayConfig(
        Optional.of(new InetSocketAddress("127.0.0.1", 0)),
        receivers,
        Optional.empty(),
        Optional.of(TOKEN),
        10);
  }

  /** Routes by severity, as the shipped compose/alertmanager/alertmanager.yml does. */
  private static String alertmanagerConfig(int relayPort) {
    StringBuilder yaml =
        new StringBuilder(
            """
            route:
              receiver: generic
              group_by: [alertname]
              group_wait: 200ms
              group_interval: 1s
              repeat_interval: 1h
              routes:
                - {matchers: ['severity="page"'], receiver: slack, continue: true}
                - {matchers: ['severity="page"'], receiver: wecom}
                - {matchers: ['severity="ticket"'], receiver: dingtalk, continue: true}
                - {matchers: ['severity="ticket"'], receiver: generic}
            receivers:
            """);
    for (AlertFormat format : FORMATS) {
      String name = format.name().toLowerCase();
      yaml.append("  - name: ")
          .append(name)
          .append("\n    webhook_configs:\n      - url: http://127.0.0.1:")
          .append(relayPort)
          .append("/alerts/")
          .append(name)
          .append("\n        max_alerts: 20\n        http_config:\n")
          .append("          authorization: {type: Bearer, credentials: ")
          .append(TOKEN)
          .append("}\n");
    }
    return yaml.toString();
  }

  private static String alerts() {
    return """
        [
          {"labels": {"alertname": "AxStageDown", "severity": "page", "job": "ax-ticker"},
           "annotations": {"summary": "A stage is down: <!channel> *ticker*"},
           "generatorURL": "http://prometheus:9090/graph?g0.expr=up"},
          {"labels": {"alertname": "AxRetentionBehind", "severity": "ticket"},
           "annotations": {"summary": "Retention is behind"},
           "generatorURL": "http://prometheus:9090/graph?g0.expr=ax_retention_overdue_seconds"}
        ]
        """;
  }

  private static String path(AlertFormat format) {
    return "/" + format.name().toLowerCase();
  }

  private static String text(RobotReceiver robots, AlertFormat format) {
    return robots.bodies(path(format)).toString();
  }

  private static JsonNode sample(AlertFormat format) throws IOException {
    String name = "/relay/" + format.name().toLowerCase() + ".shape.json";
    try (InputStream in = AlertRelayIT.class.getResourceAsStream(name)) {
      return AxJson.MAPPER.readTree(in);
    }
  }

  private static int get(URI uri) throws Exception {
    return CLIENT
        .send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
