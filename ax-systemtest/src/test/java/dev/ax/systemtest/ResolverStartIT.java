package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.resolver.ResolverMain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The resolver runs on Kafka alone: it starts without any database configuration. */
@ExtendWith(AxInfraExtension.class)
class ResolverStartIT {

  @Test
  void theResolverStartsWithoutADatabase(AxTestEnv env) throws Exception {
    String node = "resolver-nodb-" + Long.toHexString(System.nanoTime());
    Process resolver =
        StageProcess.start(
            env,
            ResolverMain.class,
            node,
            Map.of(
                "AX_JDBC_URL",
                "",
                "AX_JDBC_USER",
                "",
                "AX_RESOLVER_STATE_DIR",
                Path.of("target", "resolver-state", node).toAbsolutePath().toString()));
    Path log = Path.of("target", "stage-processes", node + ".log");
    try {
      Awaitility.await("the resolver running")
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> !resolver.isAlive() || Files.readString(log).contains("ax-resolver running"));
      assertThat(resolver.isAlive()).as("the resolver is running").isTrue();
      assertThat(Files.readString(log))
          .doesNotContain("Database clock anchored")
          .doesNotContain("AX_JDBC_URL (jdbc:mysql");
    } finally {
      resolver.destroy();
      resolver.waitFor(30, TimeUnit.SECONDS);
    }
  }
}
