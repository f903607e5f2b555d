package dev.ax.cli.local;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.ConfigException;
import dev.ax.common.config.ConfigKeys;
import dev.ax.common.kafka.Topics;

/**
 * Checks the two keys that {@link AxConfig} accepts as any string but that fail later, deep in
 * start-up, without naming the key: {@code AX_TOPIC_PREFIX} and {@code AX_METRICS_BIND}. Stateless.
 */
public final class ConfigCheck {

  private ConfigCheck() {}

  /**
   * @throws ConfigException naming the key and the value
   */
  public static void validate(AxConfig config) {
    String prefix = config.get(ConfigKeys.TOPIC_PREFIX);
    try {
      new Topics(prefix);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "bad configuration value "
              + ConfigKeys.TOPIC_PREFIX.name()
              + "="
              + prefix
              + ": "
              + e.getMessage());
    }
    String bind = config.get(ConfigKeys.METRICS_BIND);
    if (!bind.equalsIgnoreCase("off") && !isHostPort(bind)) {
      throw new ConfigException(
          "bad configuration value "
              + ConfigKeys.METRICS_BIND.name()
              + "="
              + bind
              + ": must be host:port (port 0..65535) or off");
    }
  }

  private static boolean isHostPort(String bind) {
    int colon = bind.lastIndexOf(':');
    if (colon <= 0) {
      return false;
    }
    try {
      int port = Integer.parseInt(bind.substring(colon + 1));
      return port >= 0 && port <= 65535;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
