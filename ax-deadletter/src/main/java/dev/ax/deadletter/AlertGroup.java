package dev.ax.deadletter;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.common.contract.AxJson;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One notification of Alertmanager's webhook receiver (payload version 4): a group of alerts routed
 * together, with the labels and annotations they share. {@link #parse} reads only the fields AX
 * renders and refuses, with a message fit for a 400 answer, a body that is not such a payload.
 * Immutable.
 *
 * @param status {@code firing} or {@code resolved}: the group's, as Alertmanager sets it
 * @param receiver the receiver's name in Alertmanager's configuration (may be empty)
 * @param groupLabels the labels the route groups by
 * @param commonLabels the labels every alert of the group carries
 * @param commonAnnotations the annotations every alert of the group carries
 * @param alerts the alerts, at least one, in Alertmanager's order
 * @param truncatedAlerts alerts Alertmanager left out of the payload ({@code max_alerts})
 */
public record AlertGroup(
    String status,
    String receiver,
    Map<String, String> groupLabels,
    Map<String, String> commonLabels,
    Map<String, String> commonAnnotations,
    List<Alert> alerts,
    int truncatedAlerts) {

  /** Alertmanager's webhook payload version AX reads. */
  static final String VERSION = "4";

  /**
   * One alert of the group.
   *
   * @param startsAt RFC 3339, as Alertmanager writes it
   * @param endsAt RFC 3339; Alertmanager's zero time ({@code 0001-01-01T00:00:00Z}) while firing
   */
  public record Alert(
      String status,
      Map<String, String> labels,
      Map<String, String> annotations,
      String startsAt,
      String endsAt,
      String generatorUrl) {

    public Alert {
      labels = sorted(labels);
      annotations = sorted(annotations);
    }

    /** The alert's name ({@code alertname}), or "alert" when it has none. */
    String name() {
      return labels.getOrDefault("alertname", "alert");
    }
  }

  public AlertGroup {
    groupLabels = sorted(groupLabels);
    commonLabels = sorted(commonLabels);
    commonAnnotations = sorted(commonAnnotations);
    alerts = List.copyOf(alerts);
  }

  /** A copy in name order, so a message lists labels the same way every time. */
  static Map<String, String> sorted(Map<String, String> values) {
    return Collections.unmodifiableMap(new TreeMap<>(values));
  }

  /**
   * The payload in {@code json}.
   *
   * @throws IllegalArgumentException when it is not JSON or not a version-4 payload with alerts;
   *     the message says what is wrong and quotes no more than a field name
   */
  static AlertGroup parse(byte[] json) {
    JsonNode root;
    try {
      root = AxJson.MAPPER.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON");
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    JsonNode version = root.path("version");
    if (!version.isMissingNode() && !VERSION.equals(version.asText())) {
      throw new IllegalArgumentException("version must be \"4\" (Alertmanager's webhook payload)");
    }
    JsonNode alerts = root.path("alerts");
    if (!alerts.isArray() || alerts.isEmpty()) {
      throw new IllegalArgumentException("alerts must be a non-empty array");
    }
    List<Alert> read = new ArrayList<>();
    for (JsonNode alert : alerts) {
      if (!alert.isObject()) {
        throw new IllegalArgumentException("every alert must be an object");
      }
      read.add(
          new Alert(
              status(alert.path("status"), "alerts[].status"),
              strings(alert.path("labels"), "alerts[].labels"),
              strings(alert.path("annotations"), "alerts[].annotations"),
              text(alert.path("startsAt"), "alerts[].startsAt"),
              text(alert.path("endsAt"), "alerts[].endsAt"),
              text(alert.path("generatorURL"), "alerts[].generatorURL")));
    }
    JsonNode truncated = root.path("truncatedAlerts");
    return new AlertGroup(
        status(root.path("status"), "status"),
        text(root.path("receiver"), "receiver"),
        strings(root.path("groupLabels"), "groupLabels"),
        strings(root.path("commonLabels"), "commonLabels"),
        strings(root.path("commonAnnotations"), "commonAnnotations"),
        read,
        truncated.canConvertToInt() ? Math.max(0, truncated.asInt()) : 0);
  }

  private static String status(JsonNode node, String field) {
    String status = node.asText("");
    if (!status.equals("firing") && !status.equals("resolved")) {
      throw new IllegalArgumentException(field + " must be \"firing\" or \"resolved\"");
    }
    return status;
  }

  /** A string field; missing or null reads as empty. */
  private static String text(JsonNode node, String field) {
    if (node.isMissingNode() || node.isNull()) {
      return "";
    }
    if (!node.isTextual()) {
      throw new IllegalArgumentException(field + " must be a string");
    }
    return node.asText();
  }

  /** An object of string values; missing or null reads as empty. */
  private static Map<String, String> strings(JsonNode node, String field) {
    if (node.isMissingNode() || node.isNull()) {
      return Map.of();
    }
    if (!node.isObject()) {
      throw new IllegalArgumentException(field + " must be an object of strings");
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> entry : node.properties()) {
      values.put(entry.getKey(), text(entry.getValue(), field + "." + entry.getKey()));
    }
    return values;
  }
}
