package dev.ax.cli;

import dev.ax.common.config.ConfigKey;
import dev.ax.common.config.ConfigKeySet;

/**
 * The keys only the {@code ax} command line reads. Each is declared once, here; see {@link
 * ConfigKeySet}.
 */
public final class CliKeys implements ConfigKeySet {

  public static final ConfigKey<String> OPERATOR =
      ConfigKey.string(
          "AX_OPERATOR",
          "",
          "Who runs the ax command, as ax_operator_log (ax audit) and the audit rows of the changes it makes name them; `ax --operator <name>` wins. Empty: the operating-system user.");

  /** For the {@link java.util.ServiceLoader} only. */
  public CliKeys() {}
}
