package dev.ax.deadletter;

import dev.ax.common.config.ConfigKey;
import dev.ax.common.config.ConfigKeySet;

/**
 * The dead-letter stage's keys: its webhook, the webhook's rate and format, and the alert relay.
 * {@link DeadLetterConfig} holds their values. Each key is declared once, here; see {@link
 * ConfigKeySet}.
 */
public final class DeadLetterKeys implements ConfigKeySet {

  public static final ConfigKey<String> WEBHOOK_URL =
      ConfigKey.secret(
          "AX_DEADLETTER_WEBHOOK_URL",
          "",
          "Where the dead-letter stage POSTs a JSON alert for each new dead letter. Empty: no webhook (the ax.deadletter.stored metric still moves). Treated as a secret: never logged.");

  public static final ConfigKey<String> WEBHOOK_FORMAT =
      ConfigKey.string(
          "AX_DEADLETTER_WEBHOOK_FORMAT",
          "generic",
          "How each dead-letter alert is written: `generic` (AX's JSON: event, instanceId, taskId, group, attempts, error, reason, traceId, atMs), `slack` (an incoming webhook's {\"text\": ...}), `dingtalk` or `wecom` (a group robot's {\"msgtype\": \"text\", \"text\": {\"content\": ...}}). The chat text starts with \"AX dead letter\".");

  public static final ConfigKey<Integer> WEBHOOK_PER_MINUTE =
      ConfigKey.integer(
          "AX_DEADLETTER_WEBHOOK_PER_MINUTE",
          60,
          1,
          100_000,
          "Webhook alerts sent per minute at most; alerts beyond it are counted (ax.deadletter.alerts.suppressed) and dropped.");

  public static final ConfigKey<String> RELAY_BIND =
      ConfigKey.string(
          "AX_ALERT_RELAY_BIND",
          "off",
          "host:port where the dead-letter stage serves the alert relay: POST /alerts/<receiver> takes Alertmanager's webhook payload (version 4) and posts it to that receiver's robot in its format (docs/ALERTS.md). `off`: no relay. Use a loopback address unless Alertmanager runs elsewhere; then set AX_ALERT_RELAY_TOKEN too.");

  public static final ConfigKey<String> RELAY_RECEIVERS =
      ConfigKey.secret(
          "AX_ALERT_RELAY_RECEIVERS",
          "",
          "The robot of each Alertmanager receiver the relay serves, `name=format:url` entries separated by commas, e.g. `page=wecom:https://<robot URL>,ticket=slack:https://<webhook URL>`; format generic, slack, dingtalk or wecom. A receiver not listed posts to AX_DEADLETTER_WEBHOOK_URL in AX_DEADLETTER_WEBHOOK_FORMAT, or is refused (404) when that is empty too. Treated as a secret: never logged (or AX_ALERT_RELAY_RECEIVERS_FILE).");

  public static final ConfigKey<String> RELAY_TOKEN =
      ConfigKey.secret(
          "AX_ALERT_RELAY_TOKEN",
          "",
          "Bearer token every relay request must carry (`Authorization: Bearer <token>`, Alertmanager's http_config.authorization), at least 16 characters; others are refused with 401. Empty: no token asked. Never logged (or AX_ALERT_RELAY_TOKEN_FILE).");

  public static final ConfigKey<Integer> RELAY_MAX_ALERTS =
      ConfigKey.integer(
          "AX_ALERT_RELAY_MAX_ALERTS",
          10,
          1,
          100,
          "Most alerts one relayed message lists; the rest of the group are counted in its last line.");

  /** For the {@link java.util.ServiceLoader} only. */
  public DeadLetterKeys() {}
}
