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

  public static final ConfigKey<String> LOG_FORMAT =
      ConfigKey.string(
          "AX_LOG_FORMAT",
          "text",
          "How every AX process logs (to stderr): `text`, lines with date, level, thread, logger, message and the trace fields (traceId, taskId, instanceId, taskTraceId) of a line about a task; or `json`, one JSON object per line (logback's JsonEncoder; the trace fields under `mdc`). Read from the environment only, when logging starts; another value logs text and says so.");

  /** For the {@link java.util.ServiceLoader} only. */
  public CliKeys() {}
}
