package dev.ax.api.http;

import dev.ax.common.config.ConfigException;
import dev.ax.common.model.Namespace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The API's tokens, read once from {@code AX_CONSOLE_TOKENS_FILE}: each line {@code <token> <name>
 * <role> [<namespaces>]}, role {@code read}, {@code operate} or {@code heartbeat} (executor pool
 * heartbeats only, to the pools its last field names, or {@code *} for every pool), namespaces a
 * comma-separated list or {@code *} (every namespace, and AX-wide views; the default when the field
 * is left out, as in files written before namespaces), {@code #} a comment. Only each token's
 * SHA-256 is kept, and a presented token is looked up by its own hash, so neither the file's tokens
 * nor the time a comparison takes leave this class. Immutable; thread-safe.
 */
public final class ApiTokens {

  /** Shortest token accepted: guessing 20 random characters is out of reach of any rate. */
  static final int MIN_TOKEN_LENGTH = 20;

  /** Largest tokens file read. */
  private static final long MAX_FILE_BYTES = 1024 * 1024;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@-]{1,64}");

  private final Map<String, Caller> byHash;

  private ApiTokens(Map<String, Caller> byHash) {
    this.byHash = Map.copyOf(byHash);
  }

  /**
   * The tokens of {@code file}.
   *
   * @throws ConfigException when the file cannot be read or a line is not a valid token (the
   *     message names the line, never the token)
   */
  public static ApiTokens read(Path file) {
    List<String> lines;
    try {
      if (Files.size(file) > MAX_FILE_BYTES) {
        throw new ConfigException(
            "AX_CONSOLE_TOKENS_FILE " + file + " is larger than " + MAX_FILE_BYTES + " bytes");
      }
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException("AX_CONSOLE_TOKENS_FILE " + file + " cannot be read: " + e);
    }
    return parse(lines, file.toString());
  }

  /** The tokens of {@code lines}, read from {@code source} (for messages). */
  static ApiTokens parse(List<String> lines, String source) {
    Map<String, Caller> byHash = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = source + " line " + (i + 1);
      String[] fields = line.split("\\s+");
      if (fields.length != 3 && fields.length != 4) {
        throw new ConfigException(where + ": expected `<token> <name> <role> [<namespaces>]`");
      }
      if (fields[0].length() < MIN_TOKEN_LENGTH) {
        throw new ConfigException(
            where + ": the token is shorter than " + MIN_TOKEN_LENGTH + " characters");
      }
      if (!NAME.matcher(fields[1]).matches()) {
        throw new ConfigException(
            where + ": the name must be 1-64 letters, digits or . _ @ -, not " + fields[1]);
      }
      boolean operate =
          switch (fields[2]) {
            case "operate" -> true;
            case "read", "heartbeat" -> false;
            default ->
                throw new ConfigException(where + ": the role must be read, operate or heartbeat");
          };
      Caller caller;
      if (fields[2].equals("heartbeat")) {
        if (fields.length != 4) {
          throw new ConfigException(
              where
                  + ": a heartbeat token names the executor pools it may register endpoints in"
                  + " (pool names separated by commas, or * for every pool)");
        }
        caller = Caller.heartbeat(fields[1], pools(fields[3], where));
      } else {
        Set<Namespace> namespaces = fields.length == 4 ? namespaces(fields[3], where) : null;
        caller = new Caller(fields[1], operate, namespaces);
      }
      if (byHash.put(hash(fields[0]), caller) != null) {
        throw new ConfigException(where + ": the same token is on an earlier line");
      }
    }
    if (byHash.isEmpty()) {
      throw new ConfigException(source + " holds no token");
    }
    return new ApiTokens(byHash);
  }

  /** {@code *}: null (every namespace); else the names listed, each a valid one. */
  /** A heartbeat token's pools: names separated by commas, or {@code *} (null: every pool). */
  private static Set<String> pools(String field, String where) {
    if (field.equals("*")) {
      return null;
    }
    Set<String> pools = new java.util.HashSet<>();
    for (String pool : field.split(",")) {
      if (!dev.ax.common.model.PoolNames.validName(pool)) {
        throw new ConfigException(where + ": not a pool name: " + pool);
      }
      pools.add(pool);
    }
    return pools;
  }

  private static Set<Namespace> namespaces(String field, String where) {
    if (field.equals("*")) {
      return null;
    }
    Set<Namespace> namespaces = new HashSet<>();
    for (String name : field.split(",", -1)) {
      namespaces.add(
          Namespace.parse(name)
              .orElseThrow(
                  () ->
                      new ConfigException(
                          where
                              + ": namespaces are `*` or names matching "
                              + Namespace.NAME.pattern()
                              + " separated by commas, not "
                              + field)));
    }
    return namespaces;
  }

  /** Who presents {@code token}, if anyone. */
  public Optional<Caller> caller(String token) {
    return Optional.ofNullable(byHash.get(hash(token)));
  }

  /** How many tokens there are. */
  public int size() {
    return byHash.size();
  }

  private static String hash(String token) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
