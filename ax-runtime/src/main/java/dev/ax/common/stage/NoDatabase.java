package dev.ax.common.stage;

import java.io.PrintWriter;
import java.sql.Connection;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The data source of a stage that runs on Kafka alone (the resolver): every use fails at once with
 * a reason naming the stage, so a use added by mistake is found by the first test that reaches it
 * instead of connecting to a database the deployment never gave that stage.
 *
 * <p>Immutable; thread-safe.
 */
final class NoDatabase implements DataSource {

  private final String processName;

  NoDatabase(String processName) {
    this.processName = processName;
  }

  private IllegalStateException refused() {
    return new IllegalStateException(
        processName + " runs without a database (it uses Kafka alone); this is a bug");
  }

  @Override
  public Connection getConnection() {
    throw refused();
  }

  @Override
  public Connection getConnection(String username, String password) {
    throw refused();
  }

  @Override
  public PrintWriter getLogWriter() {
    throw refused();
  }

  @Override
  public void setLogWriter(PrintWriter out) {
    throw refused();
  }

  @Override
  public void setLoginTimeout(int seconds) {
    throw refused();
  }

  @Override
  public int getLoginTimeout() {
    throw refused();
  }

  @Override
  public Logger getParentLogger() {
    throw refused();
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    throw refused();
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return false;
  }
}
