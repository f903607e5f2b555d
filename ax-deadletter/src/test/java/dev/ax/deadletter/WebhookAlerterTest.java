package dev.ax.deadletter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.ax.common.contract.AxJson;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each alert format delivered to a local receiver over real HTTP, its body checked against the
 * shape the receiving service documents: Slack's incoming webhook takes {@code {"text": string}};
 * DingTalk's and WeCom's group robots take {@code {"msgtype": "text", "text": {"content":
 * string}}}; the generic one is AX's own alert.
 */
class WebhookAlerterTest {

  private static Map<String, Object> alert() {
    Map<String, Object> alert = new LinkedHashMap<>();
    alert.put("event", "ax.deadletter");
    alert.put("instanceId", "billing~invoice@1700000000000");
    alert.put("taskId", "billing~invoice");
    alert.put("group", "billing~default");
    alert.put("attempts", 4);
    alert.put("error", "HTTP 503: " + "x".repeat(2_000));
    alert.put("reason", "retries exhausted");
    alert.put("traceId", "trace-1");
    alert.put("atMs", 1_700_000_000_000L);
    return alert;
  }

  @ParameterizedTest
  @EnumSource(AlertFormat.class)
  void eachFormatReachesALocalReceiverInTheShapeItsServiceTakes(AlertFormat format)
      throws Exception {
    AtomicReference<JsonNode> received = new AtomicReference<>();
    AtomicReference<String> contentType = new AtomicReference<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/hook",
        exchange -> {
          contentType.set(exchange.getRequestHeaders().getFirst("Content-Type"));
          received.set(AxJson.MAPPER.readTree(exchange.getRequestBody().readAllBytes()));
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    server.start();
    URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (WebhookAlerter alerter = new WebhookAlerter(url, format, 60, meters)) {
      alerter.alert(alert(), 0);
      await().atMost(Duration.ofSeconds(10)).until(() -> received.get() != null);
    } finally {
      server.stop(0);
    }
    JsonNode body = received.get();
    assertThat(contentType.get()).startsWith("application/json");
    switch (format) {
      case GENERIC -> {
        assertThat(body.path("event").asText()).isEqualTo("ax.deadletter");
        assertThat(body.path("instanceId").asText()).isEqualTo("billing~invoice@1700000000000");
        assertThat(body.path("attempts").asInt()).isEqualTo(4);
      }
      case SLACK -> {
        assertThat(fieldNames(body)).containsExactly("text");
        assertChatText(body.path("text").asText());
      }
      case DINGTALK, WECOM -> {
        assertThat(fieldNames(body)).containsExactly("msgtype", "text");
        assertThat(body.path("msgtype").asText()).isEqualTo("text");
        assertThat(fieldNames(body.path("text"))).containsExactly("content");
        assertChatText(body.path("text").path("content").asText());
      }
    }
    assertThat(meters.counter("ax.deadletter.alerts.sent").count()).isEqualTo(1);
  }

  private static void assertChatText(String text) {
    assertThat(text)
        .startsWith("AX dead letter: task billing~invoice (group billing~default)")
        .contains("instance billing~invoice@1700000000000", "after 4 attempt(s): HTTP 503")
        .hasSizeLessThan(AlertFormat.MAX_ERROR_CHARS + 300);
  }

  private static java.util.List<String> fieldNames(JsonNode node) {
    java.util.List<String> names = new java.util.ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
