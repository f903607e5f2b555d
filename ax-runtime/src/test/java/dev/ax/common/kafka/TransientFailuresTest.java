package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.store.StoreException;
import java.io.UncheckedIOException;
import java.sql.SQLDataException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

class TransientFailuresTest {

  @Test
  void databaseOutagesAreTransientWhereverTheyAreInTheCauseChain() {
    assertThat(store(new SQLTransientConnectionException("Connection is not available"))).isTrue();
    assertThat(store(new SQLRecoverableException("Communications link failure"))).isTrue();
    assertThat(store(new SQLNonTransientConnectionException("refused", "08001"))).isTrue();
    assertThat(store(new SQLTransactionRollbackException("Deadlock found", "40001"))).isTrue();
    assertThat(store(new SQLException("Lock wait timeout exceeded", "HY000", 1205))).isTrue();
    assertThat(store(new SQLException("read only", "HY000", 1290))).isTrue();
    assertThat(store(new SQLException("The table 'ax_task' is full", "HY000", 1114))).isTrue();
    assertThat(store(new SQLException("INSERT command denied", "42000", 1142))).isTrue();
    assertThat(store(new SQLException("Query execution was interrupted", "70100", 1317))).isTrue();
  }

  @Test
  void aPacketTooLargeIsNotAnOutageThoughItReadsAsABrokenConnection() {
    assertThat(
            store(
                new SQLNonTransientConnectionException(
                    "Packet for query is too large", "08S01", 1153)))
        .isFalse();
  }

  @Test
  void brokerOutagesAreTransientAlsoInsideAFutureFailure() {
    assertThat(TransientFailures.isTransient(new TimeoutException("expired"))).isTrue();
    assertThat(TransientFailures.isTransient(new TopicAuthorizationException("no WRITE"))).isTrue();
    assertThat(
            TransientFailures.isTransient(
                new ExecutionException(new NotEnoughReplicasException("isr"))))
        .isTrue();
  }

  @Test
  void whatARecordCausesIsNotTransient() {
    assertThat(TransientFailures.isTransient(new ArithmeticException("long overflow"))).isFalse();
    assertThat(store(new SQLDataException("Data too long for column", "22001", 1406))).isFalse();
    assertThat(store(new SQLException("Duplicate entry", "23000", 1062))).isFalse();
    assertThat(
            TransientFailures.isTransient(
                new ExecutionException(new RecordTooLargeException("too large"))))
        .isFalse();
    assertThat(
            TransientFailures.isTransient(
                new UncheckedIOException(new java.io.IOException("bad json"))))
        .isFalse();
    assertThat(TransientFailures.isTransient(new IllegalStateException())).isFalse();
  }

  @Test
  void aChainedNextExceptionCountsAndACyclicChainEnds() {
    SQLException batch = new SQLException("batch failed", "HY000", 0);
    batch.setNextException(new SQLTransientConnectionException("gone"));
    assertThat(TransientFailures.isTransient(batch)).isTrue();

    RuntimeException a = new RuntimeException("a");
    RuntimeException b = new RuntimeException("b", a);
    a.initCause(b);
    assertThat(TransientFailures.isTransient(a)).isFalse();
  }

  private static boolean store(SQLException cause) {
    return TransientFailures.isTransient(new StoreException("claim failed", cause));
  }
}
