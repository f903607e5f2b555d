package dev.ax.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DatabaseCoordinatesTest {

  @Test
  void toStringHidesThePassword() {
    DatabaseCoordinates coordinates =
        new DatabaseCoordinates("jdbc:mysql://h:3306/ax", "app", "s3cret");

    assertThat(coordinates.toString())
        .contains("jdbc:mysql://h:3306/ax", "app")
        .doesNotContain("s3cret");
    assertThat(coordinates.password()).isEqualTo("s3cret");
  }

  @Test
  void rejectsNonMysqlUrls() {
    assertThatThrownBy(() -> new DatabaseCoordinates("jdbc:postgresql://h/ax", "u", ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbc:postgresql://h/ax");
  }

  @Test
  void rejectsNulls() {
    assertThatThrownBy(() -> new DatabaseCoordinates("jdbc:mysql://h/ax", "u", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("password");
  }
}
