package dev.ax.common.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The TLS settings go to the driver, but never over what the URL says. */
class DatabaseTlsTest {

  @Test
  void theSettingsGoToTheDriverWhenTheUrlIsSilent() {
    Properties driver = new Properties();
    new DatabaseTls("VERIFY_IDENTITY", false).applyTo(driver, "jdbc:mysql://db:3306/ax");

    assertThat(driver)
        .containsEntry("sslMode", "VERIFY_IDENTITY")
        .containsEntry("allowPublicKeyRetrieval", "false");
  }

  @Test
  void theUrlWins() {
    Properties driver = new Properties();
    DatabaseTls.DEFAULT.applyTo(
        driver, "jdbc:mysql://db:3306/ax?useSSL=false&AllowPublicKeyRetrieval=true");

    assertThat(driver).doesNotContainKeys("sslMode", "allowPublicKeyRetrieval");
  }

  @Test
  void theDefaultPrefersTlsAndRetrievesNoKey() {
    assertThat(DatabaseTls.DEFAULT).isEqualTo(new DatabaseTls("PREFERRED", false));
  }
}
