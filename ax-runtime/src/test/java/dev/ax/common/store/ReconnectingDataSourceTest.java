package dev.ax.common.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.net.ConnectException;
import java.sql.SQLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

class ReconnectingDataSourceTest {

  @Test
  void aConnectionLevelFailureIsTheDatabaseBeingAway() {
    assertThat(
            ReconnectingDataSource.isAway(
                new SQLException("refused", "08000", new ConnectException("Connection refused"))))
        .isTrue();
    assertThat(ReconnectingDataSource.isAway(new SQLException("too many", "08004"))).isTrue();
  }

  @Test
  void aFailedTlsHandshakeIsNotWaitedOut() {
    SQLException wrapped =
        new SQLException(
            "handshake",
            "08000",
            new RuntimeException(new SSLHandshakeException("PKIX path building failed")));
    assertThat(ReconnectingDataSource.isAway(wrapped)).isFalse();
    SQLException plainRefused =
        new SQLException(
            "Connections using insecure transport are prohibited",
            "08004",
            ReconnectingDataSource.SECURE_TRANSPORT_REQUIRED);
    assertThat(ReconnectingDataSource.isAway(plainRefused)).isFalse();
  }

  @Test
  void aHandshakeCutOffByABrokenConnectionIsTheDatabaseBeingAway() {
    SSLHandshakeException cutOff =
        new SSLHandshakeException("Remote host terminated the handshake");
    cutOff.initCause(new EOFException("SSL peer shut down incorrectly"));
    assertThat(ReconnectingDataSource.isAway(new SQLException("handshake", "08000", cutOff)))
        .isTrue();
  }

  @Test
  void aRefusedLoginOrAnUnknownDatabaseIsNotWaitedOut() {
    assertThat(ReconnectingDataSource.isAway(new SQLException("denied", "28000"))).isFalse();
    assertThat(ReconnectingDataSource.isAway(new SQLException("unknown db", "42000"))).isFalse();
    assertThat(ReconnectingDataSource.isAway(new SQLException("no state"))).isFalse();
  }
}
