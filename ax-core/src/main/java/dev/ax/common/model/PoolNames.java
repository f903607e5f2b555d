package dev.ax.common.model;

import java.util.regex.Pattern;

/**
 * The names and paths of executor pools, as intake, the API and the CLI check them. Pools are
 * AX-wide (not per namespace): a pool is a set of endpoints an operator vouches for, as the HTTP
 * allow-list is a set of hosts. Stateless.
 */
public final class PoolNames {

  /** A pool name: lower-case letters, digits and {@code -}, starting with a letter, 1..64 long. */
  public static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,63}");

  /** The longest path a pool task may append to its endpoint's base URL. */
  public static final int MAX_PATH_LENGTH = 1024;

  /**
   * A path: starts with {@code /}, then URI path and query characters only (no scheme, no host).
   */
  private static final Pattern PATH =
      Pattern.compile(
          "/([A-Za-z0-9._~!$&'()*+,;=:@%?-][A-Za-z0-9._~!$&'()*+,;=:@/%?-]{0,"
              + (MAX_PATH_LENGTH - 2)
              + "})?");

  private PoolNames() {}

  /** Whether {@code name} is a legal pool name. */
  public static boolean validName(String name) {
    return name != null && NAME.matcher(name).matches();
  }

  /**
   * Whether {@code path} may follow an endpoint's base URL: it starts with one {@code /} (so it
   * cannot name another host: {@code //host} is refused), is at most {@value #MAX_PATH_LENGTH}
   * characters, holds no fragment, space or control character.
   */
  public static boolean validPath(String path) {
    return path != null && PATH.matcher(path).matches();
  }
}
