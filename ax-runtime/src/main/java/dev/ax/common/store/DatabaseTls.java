package dev.ax.common.store;

import dev.ax.common.config.CommonConfig;
import java.util.HashSet;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * How connections to the database are secured: Connector/J's {@code sslMode} and whether the driver
 * may fetch the server's RSA key over a connection without TLS ({@code allowPublicKeyRetrieval}).
 * What the JDBC URL says wins: a setting the operator put in {@code AX_JDBC_URL} is never
 * overridden (a data-source property would override it). Immutable.
 */
public record DatabaseTls(String sslMode, boolean allowPublicKeyRetrieval) {

  /** TLS when the server offers it, no key retrieval: a laptop's default. */
  public static final DatabaseTls DEFAULT = new DatabaseTls("PREFERRED", false);

  /** The URL parameters that decide TLS; when the URL has one, none of ours is applied. */
  private static final Set<String> URL_TLS_PARAMETERS =
      Set.of("sslmode", "usessl", "requiressl", "verifyservercertificate");

  public static DatabaseTls of(CommonConfig config) {
    return new DatabaseTls(config.jdbcSslMode(), config.jdbcAllowPublicKeyRetrieval());
  }

  /** Puts these settings into {@code driverProperties}, but for those {@code jdbcUrl} sets. */
  void applyTo(Properties driverProperties, String jdbcUrl) {
    Set<String> inUrl = urlParameterNames(jdbcUrl);
    if (URL_TLS_PARAMETERS.stream().noneMatch(inUrl::contains)) {
      driverProperties.setProperty("sslMode", sslMode);
    }
    if (!inUrl.contains("allowpublickeyretrieval")) {
      driverProperties.setProperty(
          "allowPublicKeyRetrieval", Boolean.toString(allowPublicKeyRetrieval));
    }
  }

  /** The names of {@code jdbcUrl}'s query parameters, lower case. */
  static Set<String> urlParameterNames(String jdbcUrl) {
    int query = jdbcUrl.indexOf('?');
    if (query < 0) {
      return Set.of();
    }
    Set<String> names = new HashSet<>();
    for (String pair : jdbcUrl.substring(query + 1).split("[&;]")) {
      int eq = pair.indexOf('=');
      String name = (eq < 0 ? pair : pair.substring(0, eq)).trim();
      if (!name.isEmpty()) {
        names.add(name.toLowerCase(Locale.ROOT));
      }
    }
    return Set.copyOf(names);
  }
}
