package dev.ax.common.config;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * The configuration keys one module reads, each declared once, as a {@code public static final
 * ConfigKey} field of the module's one implementing class (e.g. {@code TickerKeys}); there is no
 * second list of them. Each module names that class in {@code
 * META-INF/services/dev.ax.common.config.ConfigKeySet}, and {@link KnownKeys} finds every set on
 * the class path with {@link java.util.ServiceLoader}. Implementations hold constants only and need
 * a public no-argument constructor, for the service loader.
 */
public interface ConfigKeySet {

  /** The keys of this set, as {@link #keysOf} reads them from its class. */
  default List<ConfigKey<?>> keys() {
    return keysOf(getClass());
  }

  /**
   * The {@code public static final ConfigKey} fields of {@code holder}, in declaration order (the
   * order the JDK reports them in; nothing depends on it but the reading of the start-up log).
   */
  static List<ConfigKey<?>> keysOf(Class<?> holder) {
    List<ConfigKey<?>> keys = new ArrayList<>();
    for (Field field : holder.getDeclaredFields()) {
      int modifiers = field.getModifiers();
      if (field.getType() == ConfigKey.class
          && Modifier.isPublic(modifiers)
          && Modifier.isStatic(modifiers)
          && Modifier.isFinal(modifiers)) {
        try {
          keys.add((ConfigKey<?>) field.get(null));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException("cannot read " + holder.getName() + "." + field, e);
        }
      }
    }
    return List.copyOf(keys);
  }
}
