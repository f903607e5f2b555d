package dev.ax.common.config;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * Builds a stage's configuration record from its keys by name: each component {@code fooBar} gets
 * the value of the key constant {@code FOO_BAR} of the module's {@link ConfigKeySet} class. For a
 * record that holds exactly one value per key, so that the record says what there is and the key
 * set how it is read, and no hand-written list repeats either in an order that must match (two keys
 * of one type swapped would compile).
 *
 * <p>Stateless and thread-safe.
 */
public final class ConfigRecords {

  private static final Map<Class<?>, Class<?>> BOXED =
      Map.of(int.class, Integer.class, long.class, Long.class, boolean.class, Boolean.class);

  private ConfigRecords() {}

  /**
   * @throws IllegalStateException when a component has no key of its name in {@code keys}, or the
   *     key's value is not of the component's type: a programming error, found at the first start
   */
  public static <R extends Record> R read(
      AxConfig config, Class<R> type, Class<? extends ConfigKeySet> keys) {
    RecordComponent[] components = type.getRecordComponents();
    Object[] values = new Object[components.length];
    for (int i = 0; i < components.length; i++) {
      values[i] = valueOf(config, components[i], keys);
    }
    Class<?>[] types =
        Arrays.stream(components).map(RecordComponent::getType).toArray(Class[]::new);
    try {
      Constructor<R> constructor = type.getDeclaredConstructor(types);
      return constructor.newInstance(values);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException("building " + type.getSimpleName(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("building " + type.getSimpleName(), e);
    }
  }

  private static Object valueOf(
      AxConfig config, RecordComponent component, Class<? extends ConfigKeySet> keys) {
    String constant = constantName(component.getName());
    String where = component.getDeclaringRecord().getSimpleName() + "." + component.getName();
    ConfigKey<?> key;
    try {
      Field field = keys.getField(constant);
      if (!Modifier.isStatic(field.getModifiers())
          || !(field.get(null) instanceof ConfigKey<?> declared)) {
        throw new IllegalStateException(keys.getSimpleName() + "." + constant + " is no key");
      }
      key = declared;
    } catch (NoSuchFieldException | IllegalAccessException e) {
      throw new IllegalStateException(
          where + " has no key " + keys.getSimpleName() + "." + constant, e);
    }
    Object value = config.get(key);
    Class<?> type = BOXED.getOrDefault(component.getType(), component.getType());
    if (!type.isInstance(value)) {
      throw new IllegalStateException(
          where + " is a " + component.getType().getSimpleName() + ", but " + key.name() + " not");
    }
    return value;
  }

  /** {@code fooBar} → {@code FOO_BAR}. */
  static String constantName(String component) {
    return component.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
  }
}
