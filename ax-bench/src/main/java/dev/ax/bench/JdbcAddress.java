package dev.ax.bench;

import java.net.InetSocketAddress;

/**
 * The server a {@code jdbc:mysql://} or {@code jdbc:mariadb://} URL names, and the same URL pointed
 * at another address: how {@code ax bench --db-delay} routes the stages through its {@link
 * LatencyProxy}. Immutable.
 *
 * @param prefix everything before the host, e.g. {@code jdbc:mysql://}
 * @param host the host as written
 * @param port the port (3306 when the URL gives none)
 * @param rest everything after the host and port: the database and parameters
 */
record JdbcAddress(String prefix, String host, int port, String rest) {

  private static final int DEFAULT_PORT = 3306;

  /**
   * Parses {@code jdbcUrl}.
   *
   * @throws IllegalArgumentException if it is not a MySQL or MariaDB URL naming exactly one server
   */
  static JdbcAddress parse(String jdbcUrl) {
    String prefix;
    if (jdbcUrl.startsWith("jdbc:mysql://")) {
      prefix = "jdbc:mysql://";
    } else if (jdbcUrl.startsWith("jdbc:mariadb://")) {
      prefix = "jdbc:mariadb://";
    } else {
      throw new IllegalArgumentException("not a jdbc:mysql:// or jdbc:mariadb:// URL");
    }
    String afterPrefix = jdbcUrl.substring(prefix.length());
    int end = afterPrefix.length();
    for (char stop : new char[] {'/', '?'}) {
      int at = afterPrefix.indexOf(stop);
      if (at >= 0) {
        end = Math.min(end, at);
      }
    }
    String authority = afterPrefix.substring(0, end);
    if (authority.isEmpty()
        || authority.contains(",")
        || authority.contains("@")
        || authority.startsWith("[")
        || authority.startsWith("(")) {
      throw new IllegalArgumentException("the URL must name exactly one host[:port]");
    }
    int colon = authority.lastIndexOf(':');
    String host = colon < 0 ? authority : authority.substring(0, colon);
    int port = DEFAULT_PORT;
    if (colon >= 0) {
      try {
        port = Integer.parseInt(authority.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("the URL's port is not a number");
      }
      if (port < 1 || port > 65_535) {
        throw new IllegalArgumentException("the URL's port is out of range");
      }
    }
    if (host.isEmpty()) {
      throw new IllegalArgumentException("the URL names no host");
    }
    return new JdbcAddress(prefix, host, port, afterPrefix.substring(end));
  }

  /** The server's socket address (resolved now). */
  InetSocketAddress socketAddress() {
    return new InetSocketAddress(host, port);
  }

  /** The same URL, pointed at {@code newHost}:{@code newPort}. */
  String pointedAt(String newHost, int newPort) {
    return prefix + newHost + ":" + newPort + rest;
  }
}
