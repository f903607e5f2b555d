package dev.ax.deadletter;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import java.util.Locale;
import java.util.Map;

/**
 * How a dead-letter alert is written for its receiver ({@code AX_DEADLETTER_WEBHOOK_FORMAT}): AX's
 * own JSON ({@code generic}), or the message a chat robot takes: a Slack incoming webhook ({@code
 * {"text": ...}}), a DingTalk or a WeCom (WeChat Work) group robot ({@code {"msgtype": "text",
 * "text": {"content": ...}}}). The chat text starts with "AX dead letter" (a DingTalk robot with a
 * keyword check passes it with the keyword {@code AX}) and names the task, instance, group,
 * attempts and error, each cut to a bounded length. The alert relay writes Alertmanager's
 * notifications in the same four formats, as markdown for DingTalk and WeCom ({@link
 * AlertGroupMessage}, one template per format). Stateless.
 */
public enum AlertFormat {
  GENERIC,
  SLACK,
  DINGTALK,
  WECOM;

  /** Longest error summary put into a chat message. */
  static final int MAX_ERROR_CHARS = 500;

  /** The format named {@code name} (any case). */
  static AlertFormat named(String name) {
    return valueOf(name.strip().toUpperCase(Locale.ROOT));
  }

  /** The request body for {@code alert} (the generic alert's fields). */
  byte[] body(Map<String, Object> alert) {
    if (this == GENERIC) {
      return AxJson.write(alert);
    }
    ObjectNode body = AxJson.MAPPER.createObjectNode();
    if (this == SLACK) {
      // Slack reads <...> as links and mentions (<!channel>): the text is escaped as it asks.
      body.put("text", text(alert).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"));
    } else {
      body.put("msgtype", "text");
      body.putObject("text").put("content", text(alert));
    }
    return AxJson.write(body);
  }

  /** The alert as one chat message. */
  static String text(Map<String, Object> alert) {
    String error = String.valueOf(alert.get("error"));
    if (error.length() > MAX_ERROR_CHARS) {
      error = error.substring(0, MAX_ERROR_CHARS) + "…";
    }
    return "AX dead letter: task "
        + alert.get("taskId")
        + " (group "
        + alert.get("group")
        + "), instance "
        + alert.get("instanceId")
        + ", after "
        + alert.get("attempts")
        + " attempt(s): "
        + error
        + "\nReplay with: ax dlq replay (trace "
        + alert.get("traceId")
        + ")";
  }
}
