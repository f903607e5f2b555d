package dev.ax.api.http;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.CommonKeys;
import dev.ax.common.config.ConfigException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where the API listens and who may call it, checked before anything is bound: a bind that is not
 * loopback requires tokens. Immutable.
 *
 * @param host the address to bind
 * @param port the port (0: any free one, for tests)
 * @param tokens the tokens every request must present; empty: none asked for (loopback only)
 * @param maxRequestBytes largest request body read
 * @param ratePerSecond most requests a second per client
 */
public record ApiSettings(
    String host, int port, Optional<ApiTokens> tokens, int maxRequestBytes, int ratePerSecond) {

  public ApiSettings {
    if (tokens.isEmpty() && !isLoopback(host)) {
      throw new ConfigException(
          "AX_CONSOLE_BIND="
              + host
              + ":"
              + port
              + " is not a loopback address: the API and console would answer anyone who can"
              + " reach it. Set AX_CONSOLE_TOKENS_FILE (token, name, role per line), or bind"
              + " 127.0.0.1.");
    }
  }

  /**
   * The settings of {@code config}; empty when {@code AX_CONSOLE_BIND} is {@code off}.
   *
   * @throws ConfigException for a bind that is no host:port, an unreadable tokens file, or a
   *     non-loopback bind without tokens
   */
  public static Optional<ApiSettings> from(AxConfig config) {
    String bind = config.get(ApiKeys.BIND);
    if (bind.equals("off")) {
      return Optional.empty();
    }
    int colon = bind.lastIndexOf(':');
    int port = Integer.parseInt(bind.substring(colon + 1));
    if (port > 65_535) {
      throw new ConfigException("AX_CONSOLE_BIND has no such port: " + bind);
    }
    String host = bind.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    String file = config.get(ApiKeys.TOKENS_FILE);
    Optional<ApiTokens> tokens =
        file.isBlank() ? Optional.empty() : Optional.of(ApiTokens.read(Path.of(file)));
    return Optional.of(
        new ApiSettings(
            host,
            port,
            tokens,
            config.get(ApiKeys.MAX_REQUEST_BYTES),
            config.get(ApiKeys.RATE_PER_SECOND)));
  }

  /**
   * The Prometheus endpoints the summary reads: {@code AX_CONSOLE_METRICS_URLS}, else this
   * process's own {@code AX_METRICS_BIND} (none when that is off).
   *
   * @throws ConfigException for an entry that is no http(s) URL
   */
  public static List<URI> metricsSources(AxConfig config) {
    List<String> urls = config.get(ApiKeys.METRICS_URLS);
    List<URI> sources = new ArrayList<>();
    for (String url : urls) {
      if (url.isBlank()) {
        continue;
      }
      try {
        URI uri = new URI(url.strip());
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
          throw new URISyntaxException(url, "not http or https");
        }
        sources.add(uri);
      } catch (URISyntaxException e) {
        throw new ConfigException("AX_CONSOLE_METRICS_URLS has a bad URL: " + e.getMessage());
      }
    }
    String bind = config.get(CommonKeys.METRICS_BIND);
    if (sources.isEmpty() && !bind.equalsIgnoreCase("off") && !bind.endsWith(":0")) {
      String own = bind.startsWith("0.0.0.0:") ? "127.0.0.1" + bind.substring(7) : bind;
      sources.add(URI.create("http://" + own + "/metrics"));
    }
    return sources;
  }

  private static boolean isLoopback(String host) {
    try {
      for (InetAddress address : InetAddress.getAllByName(host)) {
        if (!address.isLoopbackAddress()) {
          return false;
        }
      }
      return true;
    } catch (UnknownHostException e) {
      throw new ConfigException("AX_CONSOLE_BIND names an unknown host: " + host);
    }
  }
}
