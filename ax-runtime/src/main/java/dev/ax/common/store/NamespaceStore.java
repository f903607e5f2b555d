package dev.ax.common.store;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.Namespace;
import java.util.List;
import javax.sql.DataSource;

/**
 * The namespaces an operator created ({@code ax_namespace}); the default namespace always exists
 * and is not stored. Thread-safe.
 */
public final class NamespaceStore {

  /** One namespace as stored. */
  public record Row(Namespace namespace, String createdBy, long createdAtMs) {}

  private final Jdbc jdbc;

  public NamespaceStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * Records {@code namespace}; a second create of the same name changes nothing.
   *
   * @return true when it was new
   */
  public boolean create(Namespace namespace, String actor, long nowMs) {
    if (namespace.isDefault()) {
      return false;
    }
    return jdbc.inTransaction(
        "creating namespace " + namespace,
        tx ->
            tx.update(
                    "INSERT IGNORE INTO ax_namespace (name, created_by, created_at_ms)"
                        + " VALUES (?, ?, ?)",
                    values(namespace.name(), actor, nowMs))
                > 0);
  }

  /** Every created namespace by name (the default one not among them). */
  public List<Row> all() {
    return jdbc.query(
        "reading the namespaces",
        "SELECT name, created_by, created_at_ms FROM ax_namespace ORDER BY name",
        values(),
        rs -> new Row(new Namespace(rs.getString(1)), rs.getString(2), rs.getLong(3)));
  }
}
