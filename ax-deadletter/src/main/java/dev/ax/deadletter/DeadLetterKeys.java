package dev.ax.deadletter;

import dev.ax.common.config.ConfigKey;
import dev.ax.common.config.ConfigKeySet;

/**
 * The dead-letter stage's keys: its webhook and the webhook's rate. {@link DeadLetterConfig} holds
 * their values. Each key is declared once, here; see {@link ConfigKeySet}.
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

  /** For the {@link java.util.ServiceLoader} only. */
  public DeadLetterKeys() {}
}
