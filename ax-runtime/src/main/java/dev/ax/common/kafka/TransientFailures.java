package dev.ax.common.kafka;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

  /** SQLState classes of outages: connection, authorization, transaction rollback, cancelled. */
  private static final List<String> TRANSIENT_STATE_CLASSES = List.of("08", "28", "40", "70");

  private static final String TIMEOUT_STATE = "HYT00";

  /** MySQL vendor codes of outages. */
  private static final Set<Integer> TRANSIENT_CODES =
      Set.of(
          1021, // disk full
          1044, // access denied to the database
          1045, // access denied
          1114, // table full
          1142, // table access denied
          1317, // query interrupted
          1205, // lock wait timeout
          1213, // deadlock
          1053, // server shutdown
          1290, // read-only server (a failover)
          1836); // read-only transaction (a failover)

  /** Max allowed packet exceeded: the statement itself is too large, whatever the SQLState says. */
  private static final int PACKET_TOO_LARGE = 1153;

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
          && (TRANSIENT_STATE_CLASSES.stream().anyMatch(state::startsWith)
              || state.equals(TIMEOUT_STATE))) {
        return true;
      }
      return TRANSIENT_CODES.contains(sql.getErrorCode());
    }
    return false;
  }
}
