package dev.ax.common.contract;

import dev.ax.common.model.Namespace;

/** The reason a producer's name that reaches into another namespace is refused. */
final class CrossNamespace {

  private CrossNamespace() {}

  static String reason(String field, String value) {
    return field
        + " "
        + Echo.of(value)
        + " names another namespace (the '"
        + Namespace.SEPARATOR
        + "'): a command and its dependencies act only in the namespace of the topic the command"
        + " arrives on";
  }
}
