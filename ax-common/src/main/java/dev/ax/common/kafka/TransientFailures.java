package dev.ax.common.kafka;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.RetriableException;

/**
 * Tells an infrastructure outage (the database or the broker is away, busy or failing over) from a
 * failure the records themselves cause. An outage pauses a stage, which tries the same records
 * again until it is over; any other failure may be a poison record, which a {@link ConsumerLoop}
 * isolates and parks after a bounded number of tries.
 *
 * <p>A failure is transient when any exception in its cause chain is one of:
 *
 * <ul>
 *   <li>{@link SQLTransientException} (a pool's connection timeout, a deadlock's rollback, a lock
 *       wait timeout) or {@link SQLRecoverableException} (the connection broke);
 *   <li>an {@link SQLException} whose SQLState is in class {@code 08} (connection), {@code 40}
 *       (transaction rollback) or {@code HYT00} (timeout), or whose vendor code is MySQL's lock
 *       wait timeout (1205), deadlock (1213), read-only server during a failover (1290, 1836) or
 *       server shutdown (1053);
 *   <li>a Kafka {@link RetriableException} (timeouts, leader elections, not enough replicas).
 * </ul>
 *
 * Anything else, such as an {@code ArithmeticException}, a data truncation ({@code 22001}) or a
 * {@code RecordTooLargeException}, is not: trying it again gives the same answer. Stateless.
 */
public final class TransientFailures {

  private static final int DISK_FULL = 1021;
  private static final int ACCESS_DENIED_TO_DATABASE = 1044;
  private static final int ACCESS_DENIED = 1045;
  private static final int TABLE_FULL = 1114;
  private static final int TABLE_ACCESS_DENIED = 1142;
  private static final int QUERY_INTERRUPTED = 1317;
  private static final int PACKET_TOO_LARGE = 1153;
  private static final int LOCK_WAIT_TIMEOUT = 1205;
  private static final int DEADLOCK = 1213;
  private static final int SERVER_SHUTDOWN = 1053;
  private static final int READ_ONLY = 1290;
  private static final int READ_ONLY_TRANSACTION = 1836;

  private TransientFailures() {}

  /** Whether {@code failure} is an outage to wait out rather than a record to isolate. */
  public static boolean isTransient(Throwable failure) {
    if (isPacketTooLarge(failure)) {
      return false; // reads as a broken connection (08S01), but the same statement fails again
    }
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
      if (isTransientItself(t)) {
        return true;
      }
      if (t instanceof SQLException sql) {
        for (SQLException next = sql.getNextException();
            next != null && seen.put(next, Boolean.TRUE) == null;
            next = next.getNextException()) {
          if (isTransientItself(next)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static boolean isPacketTooLarge(Throwable failure) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getErrorCode() == PACKET_TOO_LARGE) {
        return true;
      }
    }
    return false;
  }

  private static boolean isTransientItself(Throwable t) {
    if (t instanceof RetriableException
        || t instanceof AuthorizationException
        || t instanceof AuthenticationException
        || t instanceof SQLTransientException
        || t instanceof SQLRecoverableException) {
      return true;
    }
    if (t instanceof SQLException sql) {
      String state = sql.getSQLState();
      if (state != null
          && (state.startsWith("08")
              || state.startsWith("28")
              || state.startsWith("40")
              || state.startsWith("70")
              || state.equals("HYT00"))) {
        return true;
      }
      int code = sql.getErrorCode();
      return code == DISK_FULL
          || code == ACCESS_DENIED_TO_DATABASE
          || code == ACCESS_DENIED
          || code == TABLE_FULL
          || code == TABLE_ACCESS_DENIED
          || code == QUERY_INTERRUPTED
          || code == LOCK_WAIT_TIMEOUT
          || code == DEADLOCK
          || code == SERVER_SHUTDOWN
          || code == READ_ONLY
          || code == READ_ONLY_TRANSACTION;
    }
    return false;
  }
}
