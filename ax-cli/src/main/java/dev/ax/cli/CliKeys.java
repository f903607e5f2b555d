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

  public static final ConfigKey<String> API_URL =
      ConfigKey.string(
          "AX_API_URL",
          "",
          "The AX HTTP API the operator commands go through instead of the database and broker, e.g. `http://127.0.0.1:8480/api/v1`: `ax task` (show, list and every change), `ax dlq` (list, show, replay and discard by id), `ax flow`, `ax switch`, `ax audit`. Reads print the API's JSON; changes are audited under the token's name. Empty: the database and broker (AX_JDBC_URL, AX_KAFKA_BOOTSTRAP or the work directory's `ax up`).");

  public static final ConfigKey<String> NAMESPACE =
      ConfigKey.string(
          "AX_NAMESPACE",
          "",
          "The namespace the commands through AX_API_URL act in (sent as `?namespace=`; the token must reach it). Empty: the default namespace. On the database, give a namespace's task as its stored id, `<namespace>~<taskId>`.");

  public static final ConfigKey<String> API_TOKEN =
      ConfigKey.secret(
          "AX_API_TOKEN",
          "",
          "The bearer token the commands send to AX_API_URL (or AX_API_TOKEN_FILE, a file holding it); the server's AX_CONSOLE_TOKENS_FILE gives it a name and a role. Never printed. Empty: none (a loopback API without tokens).");

  /** For the {@link java.util.ServiceLoader} only. */
  public CliKeys() {}
}
