package dev.ax.api.http;

import dev.ax.common.config.ConfigKey;
import dev.ax.common.config.ConfigKeySet;
import java.util.regex.Pattern;

/**
 * The keys of the HTTP API and console ({@code ax console}). Each is declared once, here; see
 * {@link ConfigKeySet}.
 */
public final class ApiKeys implements ConfigKeySet {

  public static final ConfigKey<String> BIND =
      ConfigKey.matching(
          "AX_CONSOLE_BIND",
          "127.0.0.1:8480",
          Pattern.compile("off|[A-Za-z0-9.:\\[\\]-]+:\\d{1,5}"),
          "host:port or off",
          "host:port of the HTTP API (/api/v1) and console (/console/), served by `ax console` and `ax up`; `off`: `ax up` serves none. Loopback by default; any other address requires AX_CONSOLE_TOKENS_FILE, or the server refuses to start.");

  public static final ConfigKey<String> TOKENS_FILE =
      ConfigKey.string(
          "AX_CONSOLE_TOKENS_FILE",
          "",
          "A file of API tokens, one per line: `<token> <name> <role> [<namespaces>]`, role `read`, `operate` or `heartbeat` (executor pool heartbeats only, no namespaces), namespaces a comma-separated list the token reaches (`*` or left out: every namespace, and the AX-wide audit and switches); `#` starts a comment. When set, every request needs `Authorization: Bearer <token>`. Tokens are at least 20 characters. Empty: no tokens, allowed on a loopback bind only.");

  public static final ConfigKey<Integer> MAX_REQUEST_BYTES =
      ConfigKey.integer(
          "AX_CONSOLE_MAX_REQUEST_BYTES",
          64 * 1024,
          1024,
          16 * 1024 * 1024,
          "Largest request body the API reads, in bytes; a larger one is refused with 413.");

  public static final ConfigKey<Integer> RATE_PER_SECOND =
      ConfigKey.integer(
          "AX_CONSOLE_RATE_PER_SECOND",
          50,
          1,
          100_000,
          "Most requests a second the API answers for one client address; more are refused with 429 and a Retry-After.");

  public static final ConfigKey<java.util.List<String>> METRICS_URLS =
      ConfigKey.list(
          "AX_CONSOLE_METRICS_URLS",
          "",
          "The stages' Prometheus endpoints the console's overview sums (throughput, lateness, backlog, ticker), comma-separated, e.g. `http://10.0.0.5:9400/metrics,http://10.0.0.6:9400/metrics`. Empty: this process's own AX_METRICS_BIND (all stages, under `ax up`).");

  /** For the {@link java.util.ServiceLoader} only. */
  public ApiKeys() {}
}
