package dev.ax.embedded.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.embedded.DatabaseCoordinates;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What one test made on the shared servers is gone after it: the second test looks for the first
 * one's topics and database.
 */
@ExtendWith(AxInfraExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AxTestEnvReleaseIT {

  private static String earlierPrefix;
  private static DatabaseCoordinates earlierDatabase;

  @Test
  @Order(1)
  void makesTopicsAndUsesItsDatabase(AxTestEnv env) throws Exception {
    env.createTopics(Map.of(env.topicPrefix() + "a", 1, env.topicPrefix() + "b", 2));
    earlierPrefix = env.topicPrefix();
    earlierDatabase = env.database();

    assertThat(databaseExists(env, earlierDatabase)).isTrue();
  }

  @Test
  @Order(2)
  void findsNeitherAfterwards(AxTestEnv env) {
    assertThat(earlierPrefix).as("the first test ran first").isNotNull();
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, env.bootstrapServers()))) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  admin.listTopics().names().get(10, TimeUnit.SECONDS).stream()
                          .noneMatch(name -> name.startsWith(earlierPrefix))
                      && !databaseExists(env, earlierDatabase));
    }
  }

  private static boolean databaseExists(AxTestEnv env, DatabaseCoordinates database)
      throws Exception {
    String name = database.jdbcUrl().replaceFirst("^jdbc:mysql://[^/]+/([^?]*).*$", "$1");
    try (Connection connection =
            DriverManager.getConnection(
                env.database().jdbcUrl(), env.database().user(), env.database().password());
        ResultSet rows = connection.getMetaData().getCatalogs()) {
      while (rows.next()) {
        if (rows.getString(1).equals(name)) {
          return true;
        }
      }
      return false;
    }
  }
}
