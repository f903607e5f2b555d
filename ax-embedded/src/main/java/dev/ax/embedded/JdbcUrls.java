package dev.ax.embedded;

import java.util.regex.Pattern;

/** Builds and checks {@code jdbc:mysql://} URLs. Thread-safe (stateless). */
final class JdbcUrls {

  static final String PREFIX = "jdbc:mysql://";

  private static final Pattern DATABASE_NAME = Pattern.compile("[a-z0-9_]{1,64}");

  private JdbcUrls() {}

  /** {@code "jdbc:mysql://<host>:<port>/"}. */
  static String server(String host, int port) {
    return PREFIX + host + ":" + port + "/";
  }

  /**
   * Points a {@code jdbc:mysql://} URL at {@code database}: the path after the host list is
   * replaced, the query string (if any) kept. {@code jdbc:mysql://h:3306/?useSSL=false} with {@code
   * ax_1} becomes {@code jdbc:mysql://h:3306/ax_1?useSSL=false}.
   *
   * @throws IllegalArgumentException if the URL is not a {@code jdbc:mysql://} URL or the name is
   *     not a valid database name
   */
  static String withDatabase(String serverUrl, String database) {
    requireMysqlUrl(serverUrl);
    requireDatabaseName(database);
    int queryStart = serverUrl.indexOf('?');
    String query = queryStart < 0 ? "" : serverUrl.substring(queryStart);
    String base = queryStart < 0 ? serverUrl : serverUrl.substring(0, queryStart);
    int pathStart = base.indexOf('/', PREFIX.length());
    String hosts = pathStart < 0 ? base : base.substring(0, pathStart);
    return hosts + "/" + database + query;
  }

  /**
   * The database a {@code jdbc:mysql://} URL points at: the path after the host list, without the
   * query string; empty for a server-level URL.
   *
   * @throws IllegalArgumentException if the URL is not a {@code jdbc:mysql://} URL
   */
  static String databaseOf(String url) {
    requireMysqlUrl(url);
    int queryStart = url.indexOf('?');
    String base = queryStart < 0 ? url : url.substring(0, queryStart);
    int pathStart = base.indexOf('/', PREFIX.length());
    return pathStart < 0 ? "" : base.substring(pathStart + 1);
  }

  /**
   * @throws IllegalArgumentException unless {@code url} starts with {@code jdbc:mysql://}
   */
  static String requireMysqlUrl(String url) {
    if (url == null || !url.startsWith(PREFIX) || url.length() == PREFIX.length()) {
      throw new IllegalArgumentException(
          "expected a " + PREFIX + "<host>:<port>/ URL, got '" + url + "'");
    }
    return url;
  }

  /**
   * @throws IllegalArgumentException unless {@code name} matches {@code [a-z0-9_]{1,64}}
   */
  static String requireDatabaseName(String name) {
    if (name == null || !DATABASE_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "database name must match " + DATABASE_NAME.pattern() + ", got '" + name + "'");
    }
    return name;
  }
}
