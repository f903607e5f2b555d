package dev.ax.embedded;

import java.util.Optional;

/**
 * Reads a setting from a system property, or else from the environment variable of the same name.
 * Thread-safe (stateless).
 */
final class Settings {

  private Settings() {}

  /** The trimmed value; blank values count as absent. */
  static Optional<String> lookup(String name) {
    return raw(name).map(String::trim).filter(value -> !value.isEmpty());
  }

  /** The value exactly as given (for passwords), or an empty string when absent. */
  static String lookupOrEmpty(String name) {
    return raw(name).orElse("");
  }

  /**
   * @throws IllegalStateException naming the setting and the one that requires it, if absent
   */
  static String require(String name, String requiredBy) {
    return lookup(name)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    name
                        + " must be set (as environment variable or system property) when "
                        + requiredBy
                        + " is set"));
  }

  private static Optional<String> raw(String name) {
    String value = System.getProperty(name);
    return Optional.ofNullable(value != null ? value : System.getenv(name));
  }
}
