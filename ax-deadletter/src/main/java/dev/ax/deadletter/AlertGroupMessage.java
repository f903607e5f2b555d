package dev.ax.deadletter;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * An {@link AlertGroup} from Alertmanager written as one message per {@link AlertFormat}: the
 * template of each format is one method here ({@link #slack}, {@link #dingtalk}, {@link #wecom},
 * {@link #generic}). The chat messages have a headline ({@code AX alert [FIRING:2] AxStageDown
 * (page)}: a DingTalk robot with the keyword {@code AX} passes it) and one line per alert (name,
 * status, since when, summary, description, the labels that tell alerts apart, a link to the rule's
 * graph).
 *
 * <p>Bounds, so a large group can never make a message its robot refuses: at most {@code maxAlerts}
 * alerts are listed (the rest counted in a last line), each label and annotation value is cut to
 * {@link #MAX_VALUE_CHARS}, and the whole text to the format's limit ({@link #SLACK_MAX_CHARS},
 * {@link #DINGTALK_MAX_CHARS}, {@link #WECOM_MAX_BYTES}) at a line boundary.
 *
 * <p>Escaping: the JSON is written by Jackson, so no value can break out of its string. Inside the
 * text, Slack's mrkdwn takes {@code & < >} as markup (links, mentions such as {@code <!channel>}):
 * they are written as the entities Slack documents. DingTalk's and WeCom's markdown take {@code \ `
 * * _ [ ] ( ) # < > ~ |} as markup: each is preceded by a backslash. Line breaks inside a value
 * become spaces, so a value cannot start a heading or a list item of its own. Immutable and
 * thread-safe.
 */
final class AlertGroupMessage {

  /** Longest label or annotation value put into a message. */
  static final int MAX_VALUE_CHARS = 300;

  /** Slack: a section block's text holds at most 3,000 characters. */
  static final int SLACK_MAX_CHARS = 3_000;

  /** DingTalk: a robot's markdown text is limited to about 20,000 bytes; AX stays well below. */
  static final int DINGTALK_MAX_CHARS = 5_000;

  /** WeCom: a group robot's markdown content holds at most 4,096 bytes of UTF-8. */
  static final int WECOM_MAX_BYTES = 4_096;

  /** Labels every alert of AX's rules carries, or the headline shows: not repeated per alert. */
  private static final List<String> SHOWN_ELSEWHERE = List.of("alertname", "severity");

  private static final Pattern MARKDOWN_SPECIAL = Pattern.compile("([\\\\`*_\\[\\]()#<>~|])");
  private static final Pattern LINE_BREAKS = Pattern.compile("[\\r\\n\\t]+");
  private static final Pattern SAFE_URL = Pattern.compile("https?://[^\\s<>|()\\[\\]\"]+");

  private final AlertGroup group;
  private final int maxAlerts;

  AlertGroupMessage(AlertGroup group, int maxAlerts) {
    if (maxAlerts < 1) {
      throw new IllegalArgumentException("maxAlerts must be at least 1: " + maxAlerts);
    }
    this.group = group;
    this.maxAlerts = maxAlerts;
  }

  /** The request body for {@code format}. */
  byte[] body(AlertFormat format) {
    ObjectNode body =
        switch (format) {
          case GENERIC -> generic();
          case SLACK -> slack();
          case DINGTALK -> dingtalk();
          case WECOM -> wecom();
        };
    return AxJson.write(body);
  }

  /** Slack incoming webhook: the headline as {@code text} (notifications), the list as a block. */
  ObjectNode slack() {
    ObjectNode body = AxJson.MAPPER.createObjectNode();
    body.put("text", slackEscape(headline()));
    ObjectNode section = body.putArray("blocks").addObject().put("type", "section");
    section
        .putObject("text")
        .put("type", "mrkdwn")
        .put(
            "text",
            text(
                AlertGroupMessage::slackEscape,
                "*",
                AlertGroupMessage::slackLink,
                SLACK_MAX_CHARS));
    return body;
  }

  /** DingTalk group robot: {@code {"msgtype": "markdown", "markdown": {"title", "text"}}}. */
  ObjectNode dingtalk() {
    ObjectNode body = AxJson.MAPPER.createObjectNode().put("msgtype", "markdown");
    body.putObject("markdown")
        .put("title", cut(headline(), MAX_VALUE_CHARS))
        .put(
            "text",
            text(
                AlertGroupMessage::markdownEscape,
                "**",
                AlertGroupMessage::markdownLink,
                DINGTALK_MAX_CHARS));
    return body;
  }

  /** WeCom group robot: {@code {"msgtype": "markdown", "markdown": {"content"}}}. */
  ObjectNode wecom() {
    ObjectNode body = AxJson.MAPPER.createObjectNode().put("msgtype", "markdown");
    String content =
        text(
            AlertGroupMessage::markdownEscape,
            "**",
            AlertGroupMessage::markdownLink,
            Integer.MAX_VALUE);
    body.putObject("markdown").put("content", cutUtf8(content, WECOM_MAX_BYTES));
    return body;
  }

  /**
   * AX's own JSON: {@code event} {@code ax.alert}, the group's status, receiver, labels and
   * annotations, its alerts (at most {@code maxAlerts}, values cut) and {@code omittedAlerts}.
   */
  ObjectNode generic() {
    ObjectNode body = AxJson.MAPPER.createObjectNode();
    body.put("event", "ax.alert");
    body.put("status", group.status());
    body.put("receiver", cut(group.receiver(), MAX_VALUE_CHARS));
    putAll(body.putObject("groupLabels"), group.groupLabels());
    putAll(body.putObject("commonLabels"), group.commonLabels());
    putAll(body.putObject("commonAnnotations"), group.commonAnnotations());
    ArrayNode alerts = body.putArray("alerts");
    for (AlertGroup.Alert alert : listed()) {
      ObjectNode node = alerts.addObject().put("status", alert.status());
      putAll(node.putObject("labels"), alert.labels());
      putAll(node.putObject("annotations"), alert.annotations());
      node.put("startsAt", cut(alert.startsAt(), MAX_VALUE_CHARS));
      node.put("endsAt", cut(alert.endsAt(), MAX_VALUE_CHARS));
      node.put("generatorURL", cut(alert.generatorUrl(), MAX_VALUE_CHARS));
    }
    body.put("omittedAlerts", omitted());
    return body;
  }

  /** {@code AX alert [FIRING:2] AxStageDown (page)}: plain text, not escaped. */
  String headline() {
    String name =
        group
            .commonLabels()
            .getOrDefault(
                "alertname", group.groupLabels().getOrDefault("alertname", "alerts grouped"));
    String severity = group.commonLabels().get("severity");
    return "AX alert ["
        + group.status().toUpperCase(Locale.ROOT)
        + ":"
        + (group.alerts().size() + group.truncatedAlerts())
        + "] "
        + oneLine(name)
        + (severity == null ? "" : " (" + oneLine(severity) + ")");
  }

  private String text(
      UnaryOperator<String> escape, String bold, UnaryOperator<String> link, int maxChars) {
    StringBuilder text = new StringBuilder();
    text.append(bold).append(escape.apply(headline())).append(bold);
    String summary = group.commonAnnotations().get("summary");
    if (summary != null) {
      text.append('\n').append(escape.apply(oneLine(summary)));
    }
    for (AlertGroup.Alert alert : listed()) {
      StringBuilder line = new StringBuilder("\n- ");
      line.append(bold).append(escape.apply(oneLine(alert.name()))).append(bold);
      line.append(' ').append(escape.apply(alert.status()));
      line.append(" since ").append(escape.apply(oneLine(alert.startsAt())));
      if (summary == null && alert.annotations().containsKey("summary")) {
        line.append(": ").append(escape.apply(oneLine(alert.annotations().get("summary"))));
      }
      String description = alert.annotations().get("description");
      if (description != null) {
        line.append(" ").append(escape.apply(oneLine(description)));
      }
      for (Map.Entry<String, String> label : alert.labels().entrySet()) {
        if (!SHOWN_ELSEWHERE.contains(label.getKey())
            && !label.getValue().equals(group.commonLabels().get(label.getKey()))) {
          line.append(' ').append(escape.apply(oneLine(label.getKey())));
          line.append('=').append(escape.apply(oneLine(label.getValue())));
        }
      }
      if (SAFE_URL.matcher(alert.generatorUrl()).matches()
          && alert.generatorUrl().length() <= MAX_VALUE_CHARS) {
        line.append(' ').append(link.apply(alert.generatorUrl()));
      }
      text.append(line);
    }
    if (omitted() > 0) {
      text.append("\n").append(escape.apply("… and " + omitted() + " more alert(s)"));
    }
    return cutAtLine(text.toString(), maxChars);
  }

  private List<AlertGroup.Alert> listed() {
    return group.alerts().subList(0, Math.min(maxAlerts, group.alerts().size()));
  }

  /** Alerts not listed: beyond {@code maxAlerts}, or left out by Alertmanager itself. */
  private int omitted() {
    return group.alerts().size() - listed().size() + group.truncatedAlerts();
  }

  private static String slackLink(String url) {
    return "<" + slackEscape(url) + "|graph>";
  }

  private static String markdownLink(String url) {
    return "[graph](" + url + ")";
  }

  static String slackEscape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  static String markdownEscape(String text) {
    return MARKDOWN_SPECIAL.matcher(text).replaceAll("\\\\$1");
  }

  /** The value on one line, cut to {@link #MAX_VALUE_CHARS}. */
  private static String oneLine(String value) {
    return cut(LINE_BREAKS.matcher(value).replaceAll(" ").strip(), MAX_VALUE_CHARS);
  }

  private static String cut(String value, int maxChars) {
    if (value.length() <= maxChars) {
      return value;
    }
    int end = maxChars - 1;
    if (Character.isHighSurrogate(value.charAt(end - 1))) {
      end--; // never split a surrogate pair
    }
    return value.substring(0, end) + "…";
  }

  /** At most {@code maxChars}, ending at a whole line, then a line that says it was cut. */
  static String cutAtLine(String text, int maxChars) {
    if (text.length() <= maxChars) {
      return text;
    }
    String marker = "\n… (cut)";
    int end = text.lastIndexOf('\n', maxChars - marker.length());
    return (end > 0 ? text.substring(0, end) : cut(text, maxChars - marker.length())) + marker;
  }

  /** At most {@code maxBytes} of UTF-8, ending at a whole line. */
  static String cutUtf8(String text, int maxBytes) {
    if (text.getBytes(StandardCharsets.UTF_8).length <= maxBytes) {
      return text;
    }
    // The longest prefix that leaves room for the 10-byte marker cutAtLine appends.
    int budget = maxBytes - 16;
    int bytes = 0;
    int chars = 0;
    while (chars < text.length()) {
      int codePoint = text.codePointAt(chars);
      int length = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
      if (bytes + length > budget) {
        break;
      }
      bytes += length;
      chars += Character.charCount(codePoint);
    }
    return cutAtLine(text, chars);
  }

  private static void putAll(ObjectNode node, Map<String, String> values) {
    values.forEach((k, v) -> node.put(cut(k, MAX_VALUE_CHARS), cut(v, MAX_VALUE_CHARS)));
  }
}
