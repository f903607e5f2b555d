package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JdbcAddressTest {

  @Test
  void pointsAUrlAtAnotherAddressKeepingDatabaseAndParameters() {
    JdbcAddress address = JdbcAddress.parse("jdbc:mysql://127.0.0.1:34001/ax?useSSL=false");
    assertThat(address.host()).isEqualTo("127.0.0.1");
    assertThat(address.port()).isEqualTo(34001);
    assertThat(address.pointedAt("127.0.0.1", 5000))
        .isEqualTo("jdbc:mysql://127.0.0.1:5000/ax?useSSL=false");
  }

  @Test
  void aUrlWithoutPortMeans3306() {
    JdbcAddress address = JdbcAddress.parse("jdbc:mariadb://db.internal/ax");
    assertThat(address.port()).isEqualTo(3306);
    assertThat(address.pointedAt("localhost", 7)).isEqualTo("jdbc:mariadb://localhost:7/ax");
  }

  @Test
  void aUrlWithParametersButNoDatabaseKeepsThem() {
    assertThat(JdbcAddress.parse("jdbc:mysql://h:1?x=y").pointedAt("a", 2))
        .isEqualTo("jdbc:mysql://a:2?x=y");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "jdbc:postgresql://h:1/ax",
        "jdbc:mysql://h1:1,h2:2/ax",
        "jdbc:mysql://user@h:1/ax",
        "jdbc:mysql://[::1]:1/ax",
        "jdbc:mysql://h:port/ax",
        "jdbc:mysql://h:0/ax",
        "jdbc:mysql://h:70000/ax",
        "jdbc:mysql:///ax",
        "jdbc:mysql://:1/ax"
      })
  void refusesWhatIsNotOneMySqlServer(String url) {
    assertThatThrownBy(() -> JdbcAddress.parse(url)).isInstanceOf(IllegalArgumentException.class);
  }
}
