package dev.ax.common.config;

/** A configuration value is missing or wrong; the process stops at start with this message. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}
