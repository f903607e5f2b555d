package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.cli.command.ExitCodes;
import dev.ax.common.contract.AxJson;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code ax pool} on the database: create, register, show, list, drain, undrain, remove, each
 * change in the operator log under the operator's name; a bad name or URL is a usage error before
 * any connection, an unknown pool or endpoint a failure.
 */
@ExtendWith(AxInfraExtension.class)
class PoolCommandIT {

  @Test
  void thePoolCommandsWorkOnTheDatabaseAndAuditEachChange(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        CliRun.Target target = CliRun.pointAt(env, runtime)) {
      assertThat(
              CliRun.ax(
                      "pool",
                      "create",
                      "cli-pool",
                      "--strategy",
                      "FAILOVER",
                      "--offline-after",
                      "30s")
                  .okOut())
          .contains("pool cli-pool: created");
      assertThat(
              CliRun.ax(
                      "pool",
                      "create",
                      "cli-pool",
                      "--strategy",
                      "FAILOVER",
                      "--offline-after",
                      "30s")
                  .okOut())
          .contains("unchanged");
      assertThat(CliRun.ax("pool", "register", "cli-pool", "http://10.0.0.1:8080/").okOut())
          .contains("endpoint http://10.0.0.1:8080 of pool cli-pool: created");
      CliRun.ax("pool", "register", "cli-pool", "http://10.0.0.2:8080").okOut();
      assertThat(CliRun.ax("pool", "drain", "cli-pool", "http://10.0.0.2:8080").okOut())
          .contains("changed");

      String shown = CliRun.ax("pool", "show", "cli-pool").okOut();
      assertThat(shown)
          .contains("pool cli-pool: FAILOVER, offline after 30s, 2 endpoint(s)")
          .contains("http://10.0.0.1:8080", "ACTIVE", "online")
          .contains("http://10.0.0.2:8080", "DRAINING");
      JsonNode json =
          AxJson.MAPPER.readTree(CliRun.ax("pool", "show", "cli-pool", "--json").okOut());
      assertThat(json.get("endpoints")).hasSize(2);
      assertThat(CliRun.ax("pool", "list").okOut()).contains("cli-pool", "FAILOVER");
      CliRun.ax("pool", "undrain", "cli-pool", "http://10.0.0.2:8080").okOut();
      CliRun.ax("pool", "remove", "cli-pool", "http://10.0.0.1:8080", "--reason", "retired")
          .okOut();

      CliRun noEndpoint = CliRun.ax("pool", "drain", "cli-pool", "http://10.0.0.1:8080");
      assertThat(noEndpoint.exitCode()).isEqualTo(ExitCodes.FAILED);
      assertThat(noEndpoint.err()).contains("no such endpoint");
      CliRun noPool = CliRun.ax("pool", "show", "nope");
      assertThat(noPool.exitCode()).isEqualTo(ExitCodes.FAILED);
      assertThat(CliRun.ax("pool", "create", "Bad_Name").exitCode()).isNotZero();
      assertThat(CliRun.ax("pool", "register", "cli-pool", "ftp://x").err()).contains("http(s)");
      assertThat(CliRun.ax("pool", "create", "p", "--strategy", "RANDOM").exitCode()).isNotZero();

      CliRun.ax("pool", "remove", "cli-pool").okOut();
      List<String> audited =
          new OperatorLog(runtime.dataSource())
              .newest(null, 50).stream()
                  .filter(e -> e.action().startsWith("pool."))
                  .map(e -> e.action() + " " + e.target() + " (" + e.reason() + ")")
                  .toList();
      assertThat(audited)
          .containsExactly(
              "pool.remove cli-pool (by ax pool remove)",
              "pool.remove cli-pool http://10.0.0.1:8080 (retired)",
              "pool.undrain cli-pool http://10.0.0.2:8080 (by ax pool undrain)",
              "pool.drain cli-pool http://10.0.0.2:8080 (by ax pool drain)",
              "pool.register cli-pool http://10.0.0.2:8080 (by ax pool register)",
              "pool.register cli-pool http://10.0.0.1:8080 (by ax pool register)",
              "pool.create cli-pool FAILOVER offline-after 30000ms (by ax pool create)");
    }
  }
}
