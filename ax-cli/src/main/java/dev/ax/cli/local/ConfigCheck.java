package dev.ax.cli.local;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.config.CommonKeys;
import dev.ax.common.config.ConfigException;
import dev.ax.common.kafka.Topics;
import java.util.Map;

/**
 * Checks the two keys that {@link AxConfig} accepts as any string but that fail later, deep in
 * start-up, without naming the key: {@code AX_TOPIC_PREFIX} and {@code AX_METRICS_BIND}. Stateless.
 */
public final class ConfigCheck {

  private ConfigCheck() {}

  /**
   * The shared configuration of this process's environment, checked.
   *
   * @throws ConfigException naming the key and the value
   */
  public static CommonConfig commonFromEnvironment() {
    CommonConfig common = CommonConfig.from(AxConfig.fromEnvironment(Map.of()));
    validate(common);
    return common;
  }

  /**
   * @throws ConfigException naming the key and the value
   */
  public static void validate(CommonConfig config) {
    String prefix = config.topicPrefix();
    try {
      new Topics(prefix);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "bad configuration value "
              + CommonKeys.TOPIC_PREFIX.name()
              + "="
              + prefix
              + ": "
              + e.getMessage());
    }
    String bind = config.metricsBind();
    if (!bind.equalsIgnoreCase("off") && !isHostPort(bind)) {
      throw new ConfigException(
          "bad configuration value "
              + CommonKeys.METRICS_BIND.name()
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
