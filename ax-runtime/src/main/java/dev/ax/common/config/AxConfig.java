package dev.ax.common.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * The effective configuration of a process, read once at start. Sources, strongest first: explicit
 * overrides (the CLI), JVM system properties, environment variables, the properties file named by
 * {@code AX_CONFIG_FILE}, the key's default. Every key on the class path ({@link KnownKeys}) is
 * parsed and validated in {@link #load}: a bad value, a missing required key or an unknown {@code
 * AX_*} key stops the process there with the key and the value in the message. A process reads its
 * values from here once, into the typed records of the modules it runs ({@link CommonConfig}, a
 * stage's own); nothing else reads keys. Immutable and thread-safe.
 */
public final class AxConfig {

  private static final String PREFIX = "AX_";

  /** The suffix of a key that names the file a secret key's value is read from. */
  public static final String SECRET_FILE_SUFFIX = "_FILE";

  /** The largest secret file read: a password or a JAAS line, not a document. */
  public static final int MAX_SECRET_FILE_BYTES = 64 * 1024;

  private final Map<String, Object> values;
  private final Map<String, String> rawValues;

  private AxConfig(Map<String, Object> values, Map<String, String> rawValues) {
    this.values = values;
    this.rawValues = rawValues;
  }

  /** Reads this process's environment and system properties. */
  public static AxConfig fromEnvironment(Map<String, String> overrides) {
    Map<String, String> sysProps = new HashMap<>();
    System.getProperties().forEach((k, v) -> sysProps.put(k.toString(), v.toString()));
    return load(System.getenv(), sysProps, overrides);
  }

  /**
   * @throws ConfigException naming the key and value that are wrong
   */
  public static AxConfig load(
      Map<String, String> env,
      Map<String, String> systemProperties,
      Map<String, String> overrides) {
    Map<String, String> merged = new HashMap<>();
    String file =
        firstNonNull(
            overrides.get(CommonKeys.CONFIG_FILE.name()),
            systemProperties.get(CommonKeys.CONFIG_FILE.name()),
            env.get(CommonKeys.CONFIG_FILE.name()));
    if (file != null && !file.isBlank()) {
      merged.putAll(readFile(Path.of(file)));
    }
    copyAxKeys(env, merged);
    copyAxKeys(systemProperties, merged);
    merged.putAll(overrides);
    readSecretFiles(merged);

    for (String key : merged.keySet()) {
      if (!KnownKeys.byName().containsKey(key)) {
        throw new ConfigException(
            "unknown configuration key "
                + key
                + "="
                + mask(key, merged.get(key))
                + " (see docs/CONFIGURATION.md for the keys AX reads)");
      }
    }
    Map<String, Object> values = new HashMap<>();
    Map<String, String> raw = new TreeMap<>();
    for (ConfigKey<?> key : KnownKeys.all()) {
      String text = merged.getOrDefault(key.name(), key.defaultValue());
      if (text == null || (text.isBlank() && key.required())) {
        if (key.required()) {
          throw new ConfigException(
              "missing required configuration key " + key.name() + ": " + key.doc());
        }
        continue;
      }
      try {
        values.put(key.name(), key.parser().apply(text));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            "bad configuration value "
                + key.name()
                + "="
                + (key.secret() ? "****" : text)
                + ": "
                + e.getMessage());
      }
      raw.put(key.name(), text);
    }
    return new AxConfig(values, raw);
  }

  /**
   * Replaces each {@code <SECRET>_FILE} key (of a secret key, such as {@code
   * AX_JDBC_PASSWORD_FILE}) by the secret read from that file, as Docker and Kubernetes secrets are
   * mounted: the file's content without one trailing line break. Setting both a secret and its file
   * is refused, as is a file that cannot be read or is larger than {@link #MAX_SECRET_FILE_BYTES};
   * the message names the key and the path, never the content.
   */
  private static void readSecretFiles(Map<String, String> merged) {
    for (String name : List.copyOf(merged.keySet())) {
      if (!name.endsWith(SECRET_FILE_SUFFIX)) {
        continue;
      }
      String secretName = name.substring(0, name.length() - SECRET_FILE_SUFFIX.length());
      ConfigKey<?> secret = KnownKeys.byName().get(secretName);
      if (secret == null || !secret.secret()) {
        continue; // an unknown key: refused below with the others
      }
      String path = merged.remove(name);
      if (path == null || path.isBlank()) {
        continue;
      }
      if (merged.containsKey(secretName)) {
        throw new ConfigException(
            "both " + secretName + " and " + name + " are set: set one of them");
      }
      merged.put(secretName, readSecretFile(name, Path.of(path.trim())));
    }
  }

  private static String readSecretFile(String keyName, Path path) {
    try {
      if (Files.size(path) > MAX_SECRET_FILE_BYTES) {
        throw new ConfigException(
            keyName + "=" + path + " is larger than " + MAX_SECRET_FILE_BYTES + " bytes");
      }
      String content = Files.readString(path);
      if (content.endsWith("\r\n")) {
        return content.substring(0, content.length() - 2);
      }
      return content.endsWith("\n") ? content.substring(0, content.length() - 1) : content;
    } catch (IOException e) {
      throw new ConfigException("cannot read " + keyName + "=" + path + ": " + e);
    }
  }

  /** The value of {@code key}; null only for an optional key with no default that was not set. */
  @SuppressWarnings("unchecked")
  public <T> T get(ConfigKey<T> key) {
    if (!KnownKeys.byName().containsKey(key.name())) {
      throw new IllegalArgumentException("not a registered key: " + key.name());
    }
    return (T) values.get(key.name());
  }

  public boolean isSet(ConfigKey<?> key) {
    String raw = rawValues.get(key.name());
    return raw != null && !raw.isBlank();
  }

  /** A copy with {@code key} set to {@code value}, re-validated. */
  public AxConfig with(ConfigKey<?> key, String value) {
    Map<String, String> overrides = new HashMap<>(rawValues);
    overrides.put(key.name(), value);
    return load(Map.of(), Map.of(), overrides);
  }

  /**
   * The effective values of {@code keys} (defaults included) on one line, secrets masked: for the
   * start-up log.
   */
  public String describe(Collection<ConfigKey<?>> keys) {
    StringJoiner joiner = new StringJoiner(", ");
    for (ConfigKey<?> key : keys) {
      String raw = rawValues.get(key.name());
      if (raw != null) {
        joiner.add(key.name() + "=" + mask(key.name(), raw));
      }
    }
    return joiner.toString();
  }

  private static String mask(String keyName, String value) {
    ConfigKey<?> key = KnownKeys.byName().get(keyName);
    if (key != null && key.secret() && value != null && !value.isEmpty()) {
      return "****";
    }
    return maskUrlPasswords(value);
  }

  /**
   * {@code value} with a password inside a URL masked (jdbc:mysql://h/db?password=x, user:pass@).
   */
  static String maskUrlPasswords(String value) {
    return value == null
        ? null
        : value
            .replaceAll("(?i)(password=)[^&;]*", "$1****")
            .replaceAll("(//[^/:@]+:)[^@/]*@", "$1****@");
  }

  private static void copyAxKeys(Map<String, String> source, Map<String, String> target) {
    source.forEach(
        (k, v) -> {
          if (k.startsWith(PREFIX) && !k.equals(CommonKeys.CONFIG_FILE.name())) {
            target.put(k, v);
          }
        });
  }

  private static Map<String, String> readFile(Path path) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(path)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new ConfigException(
          "cannot read " + CommonKeys.CONFIG_FILE.name() + "=" + path + ": " + e.getMessage());
    }
    Map<String, String> map = new HashMap<>();
    properties.forEach((k, v) -> map.put(k.toString().trim(), v.toString().trim()));
    return map;
  }

  @SafeVarargs
  private static <T> T firstNonNull(T... values) {
    for (T value : values) {
      if (value != null) {
        return value;
      }
    }
    return null;
  }
}
