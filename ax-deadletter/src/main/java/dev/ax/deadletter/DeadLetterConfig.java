package dev.ax.deadletter;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.ConfigException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;

/**
 * The dead-letter stage's configuration ({@link DeadLetterKeys}), read once by {@link
 * DeadLetterMain} (or the CLI) and handed to {@link DeadLetterStage}. Immutable; {@link
 * #toString()} never shows the webhook's URL (a secret: it may carry a token).
 *
 * @param webhook where alerts are POSTed; empty: no webhook
 * @param webhookPerMinute most alerts sent per minute
 * @param webhookFormat how an alert is written for the receiver
 * @param relay the alert relay for Alertmanager ({@link AlertRelay})
 */
public record DeadLetterConfig(
    Optional<URI> webhook,
    int webhookPerMinute,
    AlertFormat webhookFormat,
    AlertRelayConfig relay) {

  /** With AX's own alert JSON, and no relay. */
  public DeadLetterConfig(Optional<URI> webhook, int webhookPerMinute) {
    this(webhook, webhookPerMinute, AlertFormat.GENERIC);
  }

  /** No relay. */
  public DeadLetterConfig(Optional<URI> webhook, int webhookPerMinute, AlertFormat webhookFormat) {
    this(webhook, webhookPerMinute, webhookFormat, AlertRelayConfig.off());
  }

  /**
   * @throws ConfigException when the webhook's URL is not an http(s) URL (without the value)
   */
  public static DeadLetterConfig from(AxConfig config) {
    Optional<URI> webhook = webhook(config.get(DeadLetterKeys.WEBHOOK_URL));
    AlertFormat format = format(config.get(DeadLetterKeys.WEBHOOK_FORMAT));
    return new DeadLetterConfig(
        webhook,
        config.get(DeadLetterKeys.WEBHOOK_PER_MINUTE),
        format,
        AlertRelayConfig.from(
            config, webhook.map(url -> new AlertRelayConfig.Target(url, format))));
  }

  private static AlertFormat format(String name) {
    try {
      return AlertFormat.named(name);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          DeadLetterKeys.WEBHOOK_FORMAT.name()
              + " must be one of generic, slack, dingtalk, wecom: "
              + name);
    }
  }

  private static Optional<URI> webhook(String url) {
    if (url.isBlank()) {
      return Optional.empty();
    }
    try {
      URI uri = new URI(url);
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
        throw new URISyntaxException("(not shown)", "not an http(s) URL");
      }
      return Optional.of(uri);
    } catch (URISyntaxException e) {
      throw new ConfigException(
          DeadLetterKeys.WEBHOOK_URL.name()
              + " is not a valid http(s) URL (the value is a secret and not shown): "
              + e.getReason());
    }
  }

  @Override
  public String toString() {
    return "DeadLetterConfig[webhook="
        + (webhook.isPresent() ? "****" : "off")
        + ", webhookPerMinute="
        + webhookPerMinute
        + ", webhookFormat="
        + webhookFormat
        + ", relay="
        + relay
        + "]";
  }
}
