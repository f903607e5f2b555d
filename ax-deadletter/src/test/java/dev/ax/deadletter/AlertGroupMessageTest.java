package dev.ax.deadletter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.common.contract.AxJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each format's message for a recorded Alertmanager payload ({@code
 * relay/alertmanager-payload.json}, version 4, its summary full of markup: {@code <!channel>},
 * {@code *now*}, a markdown link, a quote and a line break) has the shape of the sample beside it
 * ({@code relay/<format>.shape.json}: the same fields with the same JSON types, as Slack's incoming
 * webhook, DingTalk's and WeCom's robots document them), escapes the markup for its receiver, and
 * stays within its bounds.
 */
class AlertGroupMessageTest {

  private static AlertGroup recorded() throws IOException {
    return AlertGroup.parse(resource("alertmanager-payload.json"));
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = AlertGroupMessageTest.class.getResourceAsStream("/relay/" + name)) {
      assertThat(in).as("test resource relay/%s", name).isNotNull();
      return in.readAllBytes();
    }
  }

  @ParameterizedTest
  @EnumSource(AlertFormat.class)
  void eachFormatHasTheShapeOfItsRecordedSample(AlertFormat format) throws IOException {
    JsonNode body = AxJson.MAPPER.readTree(new AlertGroupMessage(recorded(), 10).body(format));
    JsonNode sample = AxJson.MAPPER.readTree(resource(format.name().toLowerCase() + ".shape.json"));
    assertSameShape("$", sample, body);
  }

  @Test
  void slackEscapesItsControlCharactersAndLinksTheGraph() throws IOException {
    JsonNode body = json(AlertFormat.SLACK, 10);
    assertThat(body.path("text").asText()).isEqualTo("AX alert [FIRING:2] AxStageDown (page)");
    String text = body.path("blocks").get(0).path("text").path("text").asText();
    assertThat(text)
        .startsWith("*AX alert [FIRING:2] AxStageDown (page)*\n")
        .contains("&lt;!channel&gt; *now* &amp; [here](http://evil.example)")
        .doesNotContain("<!channel>")
        .contains("- *AxStageDown* firing since 2026-12-07T10:00:00.000Z")
        .contains("instance=ticker-1:9400 job=ax-ticker")
        .contains("up == 0 for 1m # not a heading \"quoted\"")
        .contains("<http://prometheus:9090/graph?g0.expr=up&amp;g0.tab=1|graph>");
    assertThat(text.lines()).as("headline, summary, two alerts").hasSize(4);
  }

  @ParameterizedTest
  @EnumSource(
      value = AlertFormat.class,
      names = {"DINGTALK", "WECOM"})
  void markdownRobotsGetTheMarkupEscapedAndNoLineOfAValueOfItsOwn(AlertFormat format)
      throws IOException {
    JsonNode markdown = json(format, 10).path("markdown");
    assertThat(json(format, 10).path("msgtype").asText()).isEqualTo("markdown");
    String text = markdown.path(format == AlertFormat.WECOM ? "content" : "text").asText();
    assertThat(text)
        .startsWith("**AX alert \\[FIRING:2\\] AxStageDown \\(page\\)**\n")
        .contains("\\<!channel\\> \\*now\\* & \\[here\\]\\(http://evil.example\\)")
        .contains("up == 0 for 1m \\# not a heading \"quoted\"")
        .contains("[graph](http://prometheus:9090/graph?g0.expr=up&g0.tab=1)");
    assertThat(text.lines()).hasSize(4);
    assertThat(text.lines().skip(2)).allMatch(line -> line.startsWith("- **AxStageDown** "));
    if (format == AlertFormat.DINGTALK) {
      assertThat(markdown.path("title").asText())
          .isEqualTo("AX alert [FIRING:2] AxStageDown (page)");
    }
  }

  @Test
  void genericKeepsTheGroupAsJsonWithItsValuesIntact() throws IOException {
    JsonNode body = json(AlertFormat.GENERIC, 10);
    assertThat(body.path("commonAnnotations").path("summary").asText())
        .isEqualTo("A stage is down <!channel> *now* & [here](http://evil.example)");
    assertThat(body.path("alerts")).hasSize(2);
    assertThat(body.path("alerts").get(0).path("annotations").path("description").asText())
        .isEqualTo("up == 0 for 1m\n# not a heading \"quoted\"");
    assertThat(body.path("omittedAlerts").asInt()).isZero();
  }

  @ParameterizedTest
  @EnumSource(AlertFormat.class)
  void aLargeGroupIsCappedInAlertsAndInSize(AlertFormat format) throws IOException {
    List<AlertGroup.Alert> alerts = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      alerts.add(
          new AlertGroup.Alert(
              "firing",
              Map.of("alertname", "AxGroupFailureRateHigh", "group", "组" + i + "x".repeat(400)),
              Map.of("description", "失败率很高 ".repeat(200)),
              "2026-12-07T10:00:00Z",
              "0001-01-01T00:00:00Z",
              "http://prometheus:9090/graph?g0.expr=x"));
    }
    AlertGroup group =
        new AlertGroup(
            "firing",
            "ticket",
            Map.of("alertname", "AxGroupFailureRateHigh"),
            Map.of("alertname", "AxGroupFailureRateHigh", "severity", "ticket"),
            Map.of(),
            alerts,
            7);
    byte[] bytes = new AlertGroupMessage(group, 20).body(format);
    JsonNode body = AxJson.MAPPER.readTree(bytes);
    String all = new String(bytes, StandardCharsets.UTF_8);
    switch (format) {
      case SLACK -> {
        String text = body.path("blocks").get(0).path("text").path("text").asText();
        assertThat(text.length()).isLessThanOrEqualTo(AlertGroupMessage.SLACK_MAX_CHARS);
        assertThat(text).startsWith("*AX alert [FIRING:507]").endsWith("… (cut)");
      }
      case DINGTALK -> {
        String text = body.path("markdown").path("text").asText();
        assertThat(text.length()).isLessThanOrEqualTo(AlertGroupMessage.DINGTALK_MAX_CHARS);
        assertThat(text).endsWith("… (cut)");
      }
      case WECOM -> {
        String content = body.path("markdown").path("content").asText();
        assertThat(content.getBytes(StandardCharsets.UTF_8).length)
            .isLessThanOrEqualTo(AlertGroupMessage.WECOM_MAX_BYTES);
        assertThat(content).endsWith("… (cut)");
      }
      case GENERIC -> {
        assertThat(body.path("alerts")).hasSize(20);
        assertThat(body.path("omittedAlerts").asInt()).isEqualTo(480 + 7);
        assertThat(body.path("alerts").get(0).path("labels").path("group").asText().length())
            .isEqualTo(AlertGroupMessage.MAX_VALUE_CHARS);
        assertThat(all.length()).isLessThan(20 * 3 * 1_000);
      }
    }
  }

  @Test
  void aShortGroupBeyondMaxAlertsSaysHowManyAreLeftOut() throws IOException {
    String text =
        json(AlertFormat.SLACK, 1).path("blocks").get(0).path("text").path("text").asText();
    assertThat(text.lines()).hasSize(4);
    assertThat(text).endsWith("… and 1 more alert(s)");
  }

  @Test
  void aBodyThatIsNoVersion4PayloadIsRefusedWithTheReason() {
    assertThatThrownBy(() -> AlertGroup.parse("nope".getBytes(StandardCharsets.UTF_8)))
        .hasMessage("not JSON");
    assertThatThrownBy(() -> parse("{\"version\":\"3\",\"status\":\"firing\",\"alerts\":[{}]}"))
        .hasMessageContaining("version");
    assertThatThrownBy(() -> parse("{\"status\":\"firing\",\"alerts\":[]}"))
        .hasMessageContaining("alerts must be a non-empty array");
    assertThatThrownBy(() -> parse("{\"status\":\"odd\",\"alerts\":[{\"status\":\"firing\"}]}"))
        .hasMessageContaining("status");
    assertThatThrownBy(
            () ->
                parse("{\"status\":\"firing\",\"alerts\":[{\"status\":\"firing\",\"labels\":[]}]}"))
        .hasMessageContaining("alerts[].labels");
  }

  private static AlertGroup parse(String json) {
    return AlertGroup.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  private static JsonNode json(AlertFormat format, int maxAlerts) throws IOException {
    return AxJson.MAPPER.readTree(new AlertGroupMessage(recorded(), maxAlerts).body(format));
  }

  /**
   * {@code actual} has {@code sample}'s fields with the same JSON types; an array's elements each
   * have the shape of the sample's first; a labels or annotations object is a map of strings.
   */
  static void assertSameShape(String path, JsonNode sample, JsonNode actual) {
    assertThat(actual.getNodeType()).as("%s: JSON type", path).isEqualTo(sample.getNodeType());
    if (sample.isObject()) {
      if (path.endsWith("abels") || path.endsWith("nnotations")) {
        actual.forEach(v -> assertThat(v.isTextual()).as("%s: values are strings", path).isTrue());
        return;
      }
      assertThat(fieldNames(actual)).as("%s: fields", path).isEqualTo(fieldNames(sample));
      sample
          .fieldNames()
          .forEachRemaining(f -> assertSameShape(path + "." + f, sample.get(f), actual.get(f)));
    } else if (sample.isArray()) {
      assertThat(actual).as("%s: elements", path).isNotEmpty();
      for (int i = 0; i < actual.size(); i++) {
        assertSameShape(path + "[" + i + "]", sample.get(0), actual.get(i));
      }
    }
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
