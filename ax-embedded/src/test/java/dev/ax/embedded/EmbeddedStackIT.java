package dev.ax.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedStackIT {

  @TempDir Path workDir;

  @Test
  void restartOnTheSameDirectoryKeepsTopicsAndData() throws Exception {
    try (EmbeddedStack stack = EmbeddedStack.start(workDir)) {
      createTopic(stack.bootstrapServers(), "kept", 2);
      DatabaseCoordinates db = stack.createDatabase("ax");
      execute(db, "CREATE TABLE kept (id INT PRIMARY KEY)", "INSERT INTO kept VALUES (42)");
    }

    try (EmbeddedStack stack = EmbeddedStack.start(workDir)) {
      assertThat(topics(stack.bootstrapServers())).contains("kept");
      DatabaseCoordinates db = stack.createDatabase("ax");
      try (Connection connection =
              DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT id FROM kept")) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getInt(1)).isEqualTo(42);
      }
    }
  }

  private static void execute(DatabaseCoordinates db, String... sql) throws SQLException {
    try (Connection connection =
            DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
        Statement statement = connection.createStatement()) {
      for (String s : sql) {
        statement.execute(s);
      }
    }
  }

  private static void createTopic(String bootstrapServers, String topic, int partitions)
      throws ExecutionException, InterruptedException {
    try (Admin admin = admin(bootstrapServers)) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
    }
  }

  private static Set<String> topics(String bootstrapServers)
      throws ExecutionException, InterruptedException {
    try (Admin admin = admin(bootstrapServers)) {
      return admin.listTopics().names().get();
    }
  }

  private static Admin admin(String bootstrapServers) {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
  }
}
