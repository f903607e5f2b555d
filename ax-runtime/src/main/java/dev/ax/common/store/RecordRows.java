package dev.ax.common.store;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * Reads a row into a record, column by column in the record's component order: the i-th column
 * selected is the i-th component, read as the component's type ({@code String}, {@code int}, {@code
 * long}, {@code boolean}, a nullable {@code Integer} or {@code Long}, or an enum by its constant's
 * name). For a store whose column list mirrors its record, so that the order is written once, in
 * the column list, and not again in a hand-written mapper. SQL NULL reads as {@code ResultSet}'s
 * getters read it: 0 for a primitive, null otherwise.
 *
 * <p>Thread-safe: immutable; build one per record type and keep it.
 */
public final class RecordRows<R extends Record> implements Jdbc.RowMapper<R> {

  /** Reads one column as one component's type. */
  @FunctionalInterface
  private interface ColumnReader {
    Object read(ResultSet rs, int column) throws SQLException;
  }

  private final Constructor<R> constructor;
  private final ColumnReader[] readers;

  private RecordRows(Constructor<R> constructor, ColumnReader[] readers) {
    this.constructor = constructor;
    this.readers = readers;
  }

  /**
   * @throws IllegalArgumentException when a component has a type this cannot read
   */
  public static <R extends Record> RecordRows<R> of(Class<R> type) {
    RecordComponent[] components = type.getRecordComponents();
    Class<?>[] types =
        Arrays.stream(components).map(RecordComponent::getType).toArray(Class[]::new);
    ColumnReader[] readers = new ColumnReader[components.length];
    for (int i = 0; i < components.length; i++) {
      readers[i] = readerOf(types[i], type.getSimpleName() + "." + components[i].getName());
    }
    try {
      return new RecordRows<>(type.getDeclaredConstructor(types), readers);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException("a record has its canonical constructor: " + type, e);
    }
  }

  private static ColumnReader readerOf(Class<?> type, String component) {
    if (type == String.class) {
      return ResultSet::getString;
    }
    if (type == int.class) {
      return ResultSet::getInt;
    }
    if (type == long.class) {
      return ResultSet::getLong;
    }
    if (type == boolean.class) {
      return ResultSet::getBoolean;
    }
    if (type == Integer.class || type == Long.class) {
      return (rs, column) -> rs.getObject(column, type);
    }
    if (type.isEnum()) {
      return (rs, column) -> enumOf(type.asSubclass(Enum.class), rs.getString(column));
    }
    throw new IllegalArgumentException("no column reader for " + type + " (" + component + ")");
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Object enumOf(Class<? extends Enum> type, String name) {
    return name == null ? null : Enum.valueOf(type, name);
  }

  @Override
  public R map(ResultSet rs) throws SQLException {
    Object[] values = new Object[readers.length];
    for (int i = 0; i < readers.length; i++) {
      values[i] = readers[i].read(rs, i + 1);
    }
    try {
      return constructor.newInstance(values);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot build " + constructor.getDeclaringClass(), e);
    }
  }
}
