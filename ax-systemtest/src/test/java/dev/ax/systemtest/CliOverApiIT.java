package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.http.ApiSettings;
import dev.ax.api.http.ApiTokens;
import dev.ax.cli.command.ExitCodes;
import dev.ax.cli.local.ConsoleServer;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.TaskState;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ingest.IngestConfig;
import dev.ax.ingest.IngestStage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The CLI through the HTTP API ({@code AX_API_URL} and {@code AX_API_TOKEN}) with no database or
 * broker named: reads print the API's JSON, a change goes through the API under the token's name
 * and ingest applies it, a reader's change and a bad token are refused with the API's code, a
 * command the API has no route for says so; {@code ax calendar} and {@code ax task next} go through
 * the API too. And {@code ax console} bound beyond loopback without tokens refuses to start.
 */
@ExtendWith(AxInfraExtension.class)
class CliOverApiIT {

  private static final String OPERATE_TOKEN = "op-token-0123456789abcdef0123456789";
  private static final String READ_TOKEN = "rd-token-0123456789abcdef0123456789";

  @Test
  void theCliReadsAndChangesThroughTheApiUnderTheTokensName(AxTestEnv env) throws Exception {
    Path tokens = Files.createTempFile("ax-console-tokens", ".txt");
    Files.write(tokens, List.of(OPERATE_TOKEN + " olga operate", READ_TOKEN + " rita read"));
    try (TestRuntime runtime = TestRuntime.open(env);
        IngestStage ingest =
            new IngestStage(runtime.context("api-ingest"), IngestConfig.from(runtime.config()))
                .start();
        ConsoleServer console =
            ConsoleServer.start(
                new ApiSettings(
                    "127.0.0.1", 0, Optional.of(ApiTokens.read(tokens)), 64 * 1024, 500),
                List.of(),
                runtime.dataSource(),
                runtime.clock()::millis,
                runtime.kafka(),
                runtime.topics(),
                "cli-api-test")) {
      long now = runtime.clock().millis();
      new TaskStore(runtime.dataSource())
          .create(List.of(TestTasks.newTask("via-api", now + 3_600_000)), "test", now);
      Path tokenFile = Files.createTempFile("ax-api-token", ".txt");
      Files.writeString(tokenFile, OPERATE_TOKEN + "\n");
      System.setProperty("AX_API_URL", console.apiUrl());
      System.setProperty("AX_API_TOKEN_FILE", tokenFile.toString());
      try {
        JsonNode list = AxJson.MAPPER.readTree(CliRun.ax("task", "list", "--text", "via").okOut());
        assertThat(list.get("tasks").get(0).get("taskId").asText()).isEqualTo("via-api");

        JsonNode sent =
            AxJson.MAPPER.readTree(
                CliRun.ax("task", "pause", "via-api", "--reason", "night shift").okOut());
        assertThat(sent.get("commandId").asText()).startsWith("ax-");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    new TaskStore(runtime.dataSource()).find("via-api").orElseThrow().state()
                        == TaskState.PAUSED);
        JsonNode shown = AxJson.MAPPER.readTree(CliRun.ax("task", "show", "via-api").okOut());
        assertThat(shown.get("state").asText()).isEqualTo("PAUSED");
        JsonNode audit = AxJson.MAPPER.readTree(CliRun.ax("audit", "--actor", "olga").okOut());
        assertThat(audit.toString()).contains("task pause", "night shift (by olga)");
        assertThat(AxJson.MAPPER.readTree(CliRun.ax("switch").okOut()).toString())
            .contains("dispatch");

        JsonNode created =
            AxJson.MAPPER.readTree(
                CliRun.ax(
                        "calendar",
                        "create",
                        "api-cal",
                        "--zone",
                        "UTC",
                        "--weekly",
                        "SAT,SUN",
                        "--reason",
                        "weekends")
                    .okOut());
        assertThat(created.get("change").asText()).isEqualTo("CREATED");
        assertThat(CliRun.ax("calendar", "show", "api-cal").okOut()).contains("\"SAT\"", "\"SUN\"");
        JsonNode next =
            AxJson.MAPPER.readTree(CliRun.ax("task", "next", "via-api", "-n", "3").okOut());
        assertThat(next.get("state").asText()).isEqualTo("PAUSED");
        assertThat(next.get("notes").toString()).contains("PAUSED");
        assertThat(CliRun.ax("calendar", "show", "billing~api-cal").exitCode())
            .as("through the API the namespace is AX_NAMESPACE's")
            .isEqualTo(ExitCodes.BAD_CONFIG);
        CliRun.ax("calendar", "delete", "api-cal", "--reason", "done").okOut();

        CliRun missing = CliRun.ax("flow", "no-such-run");
        assertThat(missing.exitCode()).isEqualTo(ExitCodes.FAILED);
        assertThat(missing.err()).contains("not_found");
        CliRun noLetter = CliRun.ax("dlq", "replay", "987654", "--reason", "x");
        assertThat(noLetter.exitCode()).isEqualTo(ExitCodes.FAILED);
        assertThat(noLetter.out()).contains("dead letter 987654: not_found", "0 replayed, 1 not");
        assertThat(CliRun.ax("task", "list", "--limit", "5000").exitCode())
            .isEqualTo(ExitCodes.BAD_CONFIG);
        CliRun unsupported = CliRun.ax("dlq", "replay", "--task", "via-api");
        assertThat(unsupported.exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
        assertThat(unsupported.err()).contains("no route in the API");

        Files.writeString(tokenFile, READ_TOKEN + "\n");
        CliRun refused = CliRun.ax("task", "resume", "via-api", "--reason", "x");
        assertThat(refused.exitCode()).isEqualTo(ExitCodes.FAILED);
        assertThat(refused.err()).contains("forbidden");
        Files.writeString(tokenFile, "not-a-token-of-this-server-at-all\n");
        CliRun unknown = CliRun.ax("task", "list");
        assertThat(unknown.exitCode()).isEqualTo(ExitCodes.FAILED);
        assertThat(unknown.err()).contains("unauthorized").doesNotContain("not-a-token");

        System.setProperty("AX_API_URL", "http://olga:s3cret@127.0.0.1:1/api/v1");
        CliRun withCredentials = CliRun.ax("task", "list");
        assertThat(withCredentials.exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
        assertThat(withCredentials.err()).contains("must not carry credentials");
        assertThat(withCredentials.out() + withCredentials.err()).doesNotContain("s3cret");
      } finally {
        System.clearProperty("AX_API_URL");
        System.clearProperty("AX_API_TOKEN_FILE");
        Files.deleteIfExists(tokenFile);
        Files.deleteIfExists(tokens);
      }
    }
  }

  @Test
  void theConsoleRefusesANonLoopbackBindWithoutTokens() {
    System.setProperty("AX_CONSOLE_BIND", "0.0.0.0:0");
    try {
      CliRun console = CliRun.ax("console");
      assertThat(console.exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
      assertThat(console.err()).contains("is not a loopback address", "AX_CONSOLE_TOKENS_FILE");
    } finally {
      System.clearProperty("AX_CONSOLE_BIND");
    }
  }
}
