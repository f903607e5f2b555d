package dev.ax.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The build's servers: one process for every JVM that joins while its owner lives, gone with its
 * data when the owner ends. A {@code sleep} process stands in for Maven.
 */
class BuildServersIT {

  @Test
  void everyJoinerGetsTheSameServersAndTheyEndWithTheirOwner(@TempDir Path dir) throws Exception {
    Process owner = new ProcessBuilder("sleep", "600").start();
    try {
      BuildServers.Coordinates first = BuildServers.join(dir, owner.toHandle());
      BuildServers.Coordinates second = BuildServers.join(dir, owner.toHandle());

      assertThat(second.pid()).isEqualTo(first.pid());
      assertThat(second.bootstrapServers()).isEqualTo(first.bootstrapServers());
      assertThat(second.database().serverJdbcUrl()).isEqualTo(first.database().serverJdbcUrl());
      assertThat(first.alive()).isTrue();
      try (Admin admin =
          Admin.create(
              Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, first.bootstrapServers()))) {
        assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)).hasSize(1);
      }
      assertThat(first.database().createDatabase("build_servers_it").jdbcUrl())
          .contains("/build_servers_it");

      owner.destroy();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> !first.alive() && !Files.exists(dir.resolve(BuildServers.COORDINATES)));
    } finally {
      owner.destroyForcibly();
    }
  }

  /** Under the build (which sets the directory), a test JVM finds the Maven process it runs in. */
  @Test
  void aTestJvmOfTheBuildFindsItsMaven() {
    Assumptions.assumeTrue(
        System.getProperty(BuildServers.DIR_PROPERTY) != null, "not run by the build");

    assertThat(BuildServers.mavenAncestor(ProcessHandle.current())).isPresent();
  }
}
