package dev.ax.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class JdbcUrlsTest {

  @ParameterizedTest
  @CsvSource({
    "jdbc:mysql://127.0.0.1:3306/, jdbc:mysql://127.0.0.1:3306/ax_1",
    "jdbc:mysql://127.0.0.1:3306, jdbc:mysql://127.0.0.1:3306/ax_1",
    "jdbc:mysql://db:3306/?useSSL=false, jdbc:mysql://db:3306/ax_1?useSSL=false",
    "jdbc:mysql://db:3306?useSSL=false, jdbc:mysql://db:3306/ax_1?useSSL=false",
    "jdbc:mysql://db:3306/other?a=1&b=2, jdbc:mysql://db:3306/ax_1?a=1&b=2",
    "'jdbc:mysql://h1:3306,h2:3306/', 'jdbc:mysql://h1:3306,h2:3306/ax_1'",
  })
  void withDatabaseReplacesThePathAndKeepsTheQuery(String serverUrl, String expected) {
    assertThat(JdbcUrls.withDatabase(serverUrl, "ax_1")).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource({
    "jdbc:mysql://h:3306/ax_1?useSSL=false, ax_1",
    "'jdbc:mysql://h1:3306,h2:3306/ax_2', ax_2",
    "jdbc:mysql://h:3306/, ''",
    "jdbc:mysql://h:3306?useSSL=false, ''"
  })
  void databaseOfReadsThePathWithoutTheQuery(String url, String expected) {
    assertThat(JdbcUrls.databaseOf(url)).isEqualTo(expected);
  }

  @Test
  void serverUrlHasNoDatabase() {
    assertThat(JdbcUrls.server("127.0.0.1", 4242)).isEqualTo("jdbc:mysql://127.0.0.1:4242/");
  }

  @ParameterizedTest
  @ValueSource(strings = {"jdbc:mariadb://h:3306/", "mysql://h/", "jdbc:mysql://", ""})
  void rejectsOtherUrls(String url) {
    assertThatThrownBy(() -> JdbcUrls.withDatabase(url, "ax_1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + url + "'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "Ax", "ax-1", "ax`; DROP DATABASE x", "ax 1"})
  void rejectsInvalidDatabaseNames(String name) {
    assertThatThrownBy(() -> JdbcUrls.withDatabase("jdbc:mysql://h/", name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + name + "'");
  }

  @Test
  void acceptsDatabaseNamesUpTo64Characters() {
    assertThat(JdbcUrls.requireDatabaseName("a".repeat(64))).hasSize(64);
    assertThatThrownBy(() -> JdbcUrls.requireDatabaseName("a".repeat(65)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
