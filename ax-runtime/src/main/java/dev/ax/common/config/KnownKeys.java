package dev.ax.common.config;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Every configuration key on this process's class path: the keys of each {@link ConfigKeySet} the
 * {@link ServiceLoader} finds, read once per JVM. {@link AxConfig} refuses an {@code AX_*} name
 * that is not among them.
 *
 * <p>Every deployable runs on the class path of {@code ax-cli} (the image, {@code ./ax}, {@code ax
 * bench}), which holds every stage module, so every stage knows every stage's keys and one env file
 * can serve them all: a ticker does not refuse {@code AX_DISPATCHER_THREADS}. ax-cli's
 * ConfigurationDocTest checks that the keys found there are exactly those docs/CONFIGURATION.md
 * lists. Immutable and thread-safe.
 */
public final class KnownKeys {

  /** By name, sorted: the order keys are parsed in, so the first bad one reported is stable. */
  private static final Map<String, ConfigKey<?>> BY_NAME = load();

  private KnownKeys() {}

  public static List<ConfigKey<?>> all() {
    return List.copyOf(BY_NAME.values());
  }

  static Map<String, ConfigKey<?>> byName() {
    return BY_NAME;
  }

  private static Map<String, ConfigKey<?>> load() {
    Map<String, ConfigKey<?>> byName = new TreeMap<>();
    Map<String, String> declaredBy = new TreeMap<>();
    for (ConfigKeySet set :
        ServiceLoader.load(ConfigKeySet.class, KnownKeys.class.getClassLoader())) {
      String owner = set.getClass().getName();
      for (ConfigKey<?> key : set.keys()) {
        String earlier = declaredBy.putIfAbsent(key.name(), owner);
        if (earlier != null) {
          throw new IllegalStateException(
              "configuration key " + key.name() + " is declared by " + earlier + " and " + owner);
        }
        byName.put(key.name(), key);
      }
    }
    return Collections.unmodifiableMap(byName);
  }
}
