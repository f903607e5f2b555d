package dev.ax.deadletter;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.ConfigException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The alert relay's configuration ({@code AX_ALERT_RELAY_*} in {@link DeadLetterKeys}): where it
 * listens, which robot each Alertmanager receiver name posts to in which format, its bearer token
 * and how many alerts a message lists. Immutable; {@link #toString()} shows neither a URL nor the
 * token (secrets).
 *
 * @param bind where the relay listens; empty: no relay
 * @param receivers robot per receiver name (the last path segment of {@code /alerts/<name>})
 * @param fallback the robot of a receiver name not in {@code receivers}: the dead-letter webhook
 * @param token the bearer token a request must carry; empty: none asked
 * @param maxAlerts most alerts one message lists
 */
public record AlertRelayConfig(
    Optional<InetSocketAddress> bind,
    Map<String, Target> receivers,
    Optional<Target> fallback,
    Optional<String> token,
    int maxAlerts) {

  /** A robot: its URL (a secret) and the format it takes. */
  public record Target(URI url, AlertFormat format) {
    @Override
    public String toString() {
      return "Target[url=****, format=" + format + "]";
    }
  }

  /** A receiver name: what Alertmanager's webhook URL ends with. */
  static final Pattern RECEIVER_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

  private static final Pattern ENTRY = Pattern.compile("([^=]+)=([A-Za-z]+):(.+)");

  /** The shortest bearer token accepted. */
  static final int MIN_TOKEN_CHARS = 16;

  public AlertRelayConfig {
    receivers = Map.copyOf(receivers);
  }

  /** No relay. */
  public static AlertRelayConfig off() {
    return new AlertRelayConfig(Optional.empty(), Map.of(), Optional.empty(), Optional.empty(), 10);
  }

  /**
   * @param fallback the dead-letter webhook, if one is configured
   * @throws ConfigException naming the key, never a secret's value
   */
  static AlertRelayConfig from(AxConfig config, Optional<Target> fallback) {
    String token = config.get(DeadLetterKeys.RELAY_TOKEN);
    if (!token.isEmpty() && token.length() < MIN_TOKEN_CHARS) {
      throw new ConfigException(
          DeadLetterKeys.RELAY_TOKEN.name()
              + " must be at least "
              + MIN_TOKEN_CHARS
              + " characters (the value is a secret and not shown)");
    }
    return new AlertRelayConfig(
        bind(config.get(DeadLetterKeys.RELAY_BIND)),
        receivers(config.get(DeadLetterKeys.RELAY_RECEIVERS)),
        fallback,
        token.isEmpty() ? Optional.empty() : Optional.of(token),
        config.get(DeadLetterKeys.RELAY_MAX_ALERTS));
  }

  /** {@code off}, or {@code host:port} (port 0: any free port, for tests). */
  static Optional<InetSocketAddress> bind(String text) {
    String value = text.strip();
    if (value.equalsIgnoreCase("off") || value.isEmpty()) {
      return Optional.empty();
    }
    int colon = value.lastIndexOf(':');
    try {
      int port = Integer.parseInt(value.substring(colon + 1));
      String host = value.substring(0, Math.max(colon, 0));
      if (colon <= 0 || port < 0 || port > 65_535) {
        throw new NumberFormatException();
      }
      return Optional.of(new InetSocketAddress(host, port));
    } catch (NumberFormatException e) {
      throw new ConfigException(
          DeadLetterKeys.RELAY_BIND.name() + " must be off or host:port: " + text);
    }
  }

  /** {@code name=format:url} entries, separated by commas or white space. */
  static Map<String, Target> receivers(String text) {
    Map<String, Target> receivers = new TreeMap<>();
    for (String entry : text.strip().split("[,\\s]+")) {
      if (entry.isEmpty()) {
        continue;
      }
      Matcher matcher = ENTRY.matcher(entry);
      String key = DeadLetterKeys.RELAY_RECEIVERS.name();
      if (!matcher.matches() || !RECEIVER_NAME.matcher(matcher.group(1)).matches()) {
        throw new ConfigException(
            key + " entries are name=format:url (the value is a secret and not shown)");
      }
      AlertFormat format;
      try {
        format = AlertFormat.named(matcher.group(2));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            key
                + ": the format of "
                + matcher.group(1)
                + " must be one of generic, slack, dingtalk, wecom: "
                + matcher.group(2));
      }
      URI url = httpUrl(matcher.group(3), key + " (receiver " + matcher.group(1) + ")");
      if (receivers.put(matcher.group(1), new Target(url, format)) != null) {
        throw new ConfigException(key + ": receiver " + matcher.group(1) + " named twice");
      }
    }
    return receivers;
  }

  /** An http(s) URL; the message names {@code what}, never the value. */
  static URI httpUrl(String url, String what) {
    try {
      URI uri = new URI(url);
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
        throw new URISyntaxException("(not shown)", "not an http(s) URL");
      }
      if (uri.getHost() == null) {
        throw new URISyntaxException("(not shown)", "no host");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new ConfigException(
          what
              + " is not a valid http(s) URL (the value is a secret and not shown): "
              + e.getReason());
    }
  }

  /** The robot of {@code receiver}: its own, else the fallback. */
  Optional<Target> target(String receiver) {
    Target own = receivers.get(receiver);
    return own != null ? Optional.of(own) : fallback;
  }

  @Override
  public String toString() {
    return "AlertRelayConfig[bind="
        + bind.map(InetSocketAddress::toString).orElse("off")
        + ", receivers="
        + receivers.keySet()
        + ", fallback="
        + (fallback.isPresent() ? "the dead-letter webhook" : "none")
        + ", token="
        + (token.isPresent() ? "****" : "none")
        + ", maxAlerts="
        + maxAlerts
        + "]";
  }
}
