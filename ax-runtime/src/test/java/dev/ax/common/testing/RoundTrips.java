package dev.ax.common.testing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A data source that counts the statement executions sent through it: one per round trip to the
 * server, since a packet of several statements is one execution. Thread-safe.
 */
public final class RoundTrips {

  private static final Set<String> EXECUTIONS =
      Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate", "executeBatch");

  private final AtomicInteger count = new AtomicInteger();
  private final DataSource dataSource;

  public RoundTrips(DataSource target) {
    this.dataSource =
        proxy(
            DataSource.class,
            target,
            (result, method) ->
                method.equals("getConnection")
                    ? proxy(Connection.class, result, this::statement)
                    : result);
  }

  public DataSource dataSource() {
    return dataSource;
  }

  public int count() {
    return count.get();
  }

  private Object statement(Object result, String method) {
    if (result instanceof PreparedStatement) {
      return proxy(PreparedStatement.class, result, this::execution);
    }
    if (result instanceof Statement) {
      return proxy(Statement.class, result, this::execution);
    }
    return result;
  }

  private Object execution(Object result, String method) {
    if (EXECUTIONS.contains(method)) {
      count.incrementAndGet();
    }
    return result;
  }

  @FunctionalInterface
  private interface AfterCall {
    Object wrap(Object result, String method);
  }

  private static <T> T proxy(Class<T> type, Object target, AfterCall after) {
    InvocationHandler handler =
        (self, method, args) -> {
          try {
            return after.wrap(method.invoke(target, args), method.getName());
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
  }
}
