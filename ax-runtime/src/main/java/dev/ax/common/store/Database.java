package dev.ax.common.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the connection pool every store uses and applies the schema migrations. The pool runs under
 * READ COMMITTED: claims are conditional UPDATEs that must see each other's commits, not a
 * repeatable-read snapshot.
 */
public final class Database {

  private static final Logger log = LoggerFactory.getLogger(Database.class);

  private Database() {}

  /** How long a borrow waits for a connection before it fails as an outage. */
  public static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(10);

  /**
   * A pool of {@code maxPoolSize} connections with the default borrow timeout and TLS settings.
   *
   * @param poolName shows in Hikari's logs and thread names, e.g. "ax-ingest"
   */
  public static HikariDataSource open(
      String jdbcUrl, String user, String password, int maxPoolSize, String poolName) {
    return open(jdbcUrl, user, password, Pool.of(maxPoolSize, poolName));
  }

  /** A pool as {@code pool} describes it. */
  public static HikariDataSource open(String jdbcUrl, String user, String password, Pool pool) {
    HikariConfig config = baseConfig(pool.maxSize(), pool.name());
    config.setConnectionTimeout(pool.connectionTimeout().toMillis());
    // A new connection to a database that is restarting must fail, not hang: it is tried again
    // (ReconnectingDataSource), and the stage sees an outage it waits out.
    config.addDataSourceProperty("connectTimeout", "2000");
    return start(config, jdbcUrl, user, password, pool.connectionTimeout(), pool.tls());
  }

  /**
   * What a pool is: its size, its name (in Hikari's logs and thread names), how long a borrow waits
   * before it fails as an outage, and the connections' TLS settings.
   */
  public record Pool(int maxSize, String name, Duration connectionTimeout, DatabaseTls tls) {

    /** {@code maxSize} connections named {@code name}, with the default timeout and TLS. */
    public static Pool of(int maxSize, String name) {
      return new Pool(maxSize, name, CONNECTION_TIMEOUT, DatabaseTls.DEFAULT);
    }

    public Pool withTls(DatabaseTls tls) {
      return new Pool(maxSize, name, connectionTimeout, tls);
    }

    /** A shorter borrow timeout, for tests of an outage. */
    public Pool withConnectionTimeout(Duration connectionTimeout) {
      return new Pool(maxSize, name, connectionTimeout, tls);
    }
  }

  /** The pool over a {@link ReconnectingDataSource} with the configured driver properties. */
  private static HikariDataSource start(
      HikariConfig config,
      String jdbcUrl,
      String user,
      String password,
      Duration patience,
      DatabaseTls tls) {
    Properties properties = new Properties();
    properties.putAll(config.getDataSourceProperties());
    tls.applyTo(properties, jdbcUrl);
    properties.setProperty("user", user == null ? "" : user);
    properties.setProperty("password", password == null ? "" : password);
    config.setDataSource(new ReconnectingDataSource(jdbcUrl, properties, patience));
    return new HikariDataSource(config);
  }

  private static HikariConfig baseConfig(int maxPoolSize, String poolName) {
    HikariConfig config = new HikariConfig();
    config.setMaximumPoolSize(maxPoolSize);
    config.setPoolName(poolName);
    config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    config.setAutoCommit(true);
    // UNIX_TIMESTAMP(NOW(3)) converts through the session time zone: pin it to UTC so the
    // database clock cannot jump an hour in a DST overlap of the server's zone.
    config.setConnectionInitSql("SET time_zone = '+00:00'");
    // Affected (not found) rows, so INSERT ... ON DUPLICATE KEY UPDATE reports 0 for a duplicate.
    config.addDataSourceProperty("useAffectedRows", "true");
    // Client-side prepared statements parse their SQL on every prepare unless cached, and the
    // driver caches only statements up to prepStmtCacheSqlLimit characters (256 by default):
    // the fenced UPDATEs, IN lists and multi-row INSERTs of the hot paths are longer, and parsing
    // them costs CPU on every prepare (docs/BENCHMARKS.md, "Measurements behind the code's
    // settings"). An IN list has one shape per batch size, hence room for a few hundred shapes per
    // connection.
    config.addDataSourceProperty("cachePrepStmts", "true");
    config.addDataSourceProperty("prepStmtCacheSize", "500");
    config.addDataSourceProperty("prepStmtCacheSqlLimit", "8192");
    config.addDataSourceProperty("useServerPrepStmts", "false");
    // A batch move sends its UPDATE, audit INSERT and read-back SELECT (and on the hot paths its
    // START TRANSACTION and COMMIT) as one packet: see Transaction. Every value in them is a bound
    // parameter and every identifier a constant of the store classes.
    config.addDataSourceProperty("allowMultiQueries", "true");
    config.addDataSourceProperty("connectionTimeZone", "UTC");
    return config;
  }

  /** Connections in a control pool: the lease heartbeat and the clock, one each. */
  static final int CONTROL_POOL_SIZE = 2;

  /** How long a control pool's borrow, connect or query may take before it fails. */
  public static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(1);

  /**
   * A small pool for the few statements that must answer fast or fail fast: the ticker lease
   * heartbeat and the clock's readings. The stage's own pool may be starved by its work, or wait
   * {@link #CONNECTION_TIMEOUT} for a database that is away; a renewal queued behind that would
   * outlive the lease. Here a borrow, a connect and a read each give up after {@link
   * #CONTROL_TIMEOUT}, so a heartbeat fails and is tried again at the next one.
   */
  public static HikariDataSource openControl(
      String jdbcUrl, String user, String password, String poolName, DatabaseTls tls) {
    HikariConfig config = baseConfig(CONTROL_POOL_SIZE, poolName);
    long timeoutMs = CONTROL_TIMEOUT.toMillis();
    config.setConnectionTimeout(timeoutMs);
    config.setValidationTimeout(timeoutMs / 2);
    config.addDataSourceProperty("connectTimeout", Long.toString(timeoutMs));
    config.addDataSourceProperty("socketTimeout", Long.toString(2 * timeoutMs));
    // Fail at once at start if the database is away; the stage then stops with the reason.
    config.setInitializationFailTimeout(timeoutMs);
    return start(config, jdbcUrl, user, password, CONTROL_TIMEOUT, tls);
  }

  /**
   * The newest migration under {@code db/migration}: what this build's stages need. A test checks
   * it against the migration files.
   */
  public static final int SCHEMA_VERSION = 27;

  /** What a migration did: the schema's version after it, and how many migrations it applied. */
  public record Migration(int version, int applied) {}

  /**
   * Brings the schema to {@link #SCHEMA_VERSION}. A schema already there is left alone without
   * starting Flyway (one query instead of seconds of class loading and scanning, on every stage
   * start). Safe to call from several processes at once: Flyway locks its history table.
   */
  public static Migration migrate(DataSource dataSource) {
    int current = schemaVersion(dataSource);
    if (current >= SCHEMA_VERSION) {
      log.info("Schema at version {}: nothing to migrate", current);
      return new Migration(current, 0);
    }
    MigrateResult result =
        Flyway.configure()
            .dataSource(dataSource)
            .locations("classpath:db/migration")
            .table(HISTORY_TABLE)
            .load()
            .migrate();
    int version = schemaVersion(dataSource);
    log.info(
        "Schema at version {} ({} migration(s) applied now)", version, result.migrationsExecuted);
    return new Migration(version, result.migrationsExecuted);
  }

  /**
   * For a stage that does not migrate ({@code AX_DB_MIGRATE=false}): the schema must be at least
   * {@link #SCHEMA_VERSION}.
   *
   * @throws dev.ax.common.config.ConfigException naming the versions and what to run, when it is
   *     behind
   */
  public static void requireCurrent(DataSource dataSource) {
    int current = schemaVersion(dataSource);
    if (current < SCHEMA_VERSION) {
      throw new dev.ax.common.config.ConfigException(
          "the database schema is at version "
              + current
              + " and this AX needs version "
              + SCHEMA_VERSION
              + " (AX_DB_MIGRATE=false): run `ax migrate` against this database first, or start"
              + " one stage with AX_DB_MIGRATE=true");
    }
    if (current > SCHEMA_VERSION) {
      log.warn(
          "The database schema is at version {}, newer than this AX's {}: a newer AX migrated it",
          current,
          SCHEMA_VERSION);
    }
  }

  private static final String HISTORY_TABLE = "ax_schema_history";

  /** The highest successfully applied migration, or 0 for a database never migrated. */
  static int schemaVersion(DataSource dataSource) {
    return Transactions.read(
        dataSource,
        "reading the schema version",
        connection -> {
          try (java.sql.Statement statement = connection.createStatement();
              java.sql.ResultSet rs =
                  statement.executeQuery(
                      "SELECT COALESCE(MAX(CAST(version AS UNSIGNED)), 0) FROM "
                          + HISTORY_TABLE
                          + " WHERE success = 1 AND version IS NOT NULL")) {
            rs.next();
            return rs.getInt(1);
          } catch (java.sql.SQLException e) {
            if ("42S02".equals(e.getSQLState())) {
              return 0; // no history table: never migrated
            }
            throw e;
          }
        });
  }
}
