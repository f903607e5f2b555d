package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.ax.api.http.ApiSettings;
import dev.ax.cli.local.ConsoleServer;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.store.TaskRun;
import dev.ax.common.store.TaskRuns;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Run output through the whole pipeline (issue 41, part 3): an HTTP task's status, listed header
 * and body and a shell task's stdout are stored with the attempt, shown by {@code ax task runs} and
 * {@code GET /api/v1/tasks/{id}/runs}, and summed up in the completion event's {@code result}; the
 * task's secret param, a {@code token=} in the body, the signing secret and the {@code Set-Cookie}
 * header never appear.
 */
@ExtendWith(AxInfraExtension.class)
class RunOutputIT {

  private static final String SIGNING = "signing-secret-5b0c6e1d2f3a4b5c6d7e8f90a1b2c3d4";
  private static final String PARAM = "param-secret-7f3a9c61";
  private static final String BODY_TOKEN = "body-token-c0ffee11";
  private static final String COOKIE = "cookie-secret-0b5e";
  private static final List<String> SECRETS = List.of(SIGNING, PARAM, BODY_TOKEN, COOKIE);

  @Test
  void anAttemptsOutputIsStoredShownAndSummedUpWithoutItsSecrets(AxTestEnv env) throws Exception {
    HttpServer endpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
    endpoint.createContext(
        "/",
        exchange -> {
          String asked = new String(exchange.getRequestBody().readAllBytes(), UTF8);
          byte[] body =
              ("{\"accepted\":true,\"token\":\""
                      + BODY_TOKEN
                      + "\",\"echo\":"
                      + asked
                      + ","
                      + "\"signedWith\":\""
                      + SIGNING
                      + "\"}")
                  .getBytes(UTF8);
          exchange.getResponseHeaders().add("X-Request-Id", "req-77");
          exchange.getResponseHeaders().add("Set-Cookie", "session=" + COOKIE);
          exchange.sendResponseHeaders(202, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    endpoint.start();
    Path scripts = Files.createTempDirectory("ax-run-output-scripts");
    Path hello = scripts.resolve("hello.sh");
    Files.writeString(
        hello, "#!/bin/sh\necho \"hello from $AX_PARAM_WHO\"\necho \"apikey=$AX_PARAM_API_KEY\"\n");
    Files.setPosixFilePermissions(hello, PosixFilePermissions.fromString("rwxr-xr-x"));
    Map<String, String> config = new HashMap<>();
    config.put("AX_HTTP_ALLOWED_HOSTS", "127.0.0.1");
    config.put("AX_HTTP_SIGNING_SECRET", SIGNING);
    config.put("AX_SHELL_SCRIPT_DIR", scripts.toString());
    try (TestRuntime runtime = TestRuntime.open(env, config);
        RunningStages stages =
            RunningStages.on(runtime, "node-1").ingest().ticker().dispatcher(config);
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        CliRun.Target cli = CliRun.pointAt(env, runtime);
        TopicReader completed =
            new TopicReader(runtime.bootstrapServers(), runtime.topics().completed());
        ConsoleServer console =
            ConsoleServer.start(
                new ApiSettings("127.0.0.1", 0, Optional.empty(), 64 * 1024, 500),
                List.of(),
                runtime.dataSource(),
                runtime.clock()::millis,
                runtime.kafka(),
                runtime.topics(),
                "run-output-test")) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      String url = "http://127.0.0.1:" + endpoint.getAddress().getPort() + "/work";
      Commands.send(
          producer,
          runtime,
          "http-out",
          "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":0},\"executor\":{\"type\":\"HTTP\",\"url\":\""
              + url
              + "\",\"outputHeaders\":[\"X-Request-Id\",\"Set-Cookie\"]},"
              + "\"params\":{\"password\":\""
              + PARAM
              + "\"}");
      Commands.send(
          producer,
          runtime,
          "shell-out",
          "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":0},\"executor\":{\"type\":\"SHELL\","
              + "\"script\":\"hello.sh\"},\"params\":{\"WHO\":\"olga\",\"API_KEY\":\""
              + PARAM
              + "\"}");

      Map<String, TaskCompletedEvent> events = new HashMap<>();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                completed
                    .poll()
                    .forEach(
                        r -> events.put(r.key(), AxJson.read(r.value(), TaskCompletedEvent.class)));
                return events.containsKey("http-out") && events.containsKey("shell-out");
              });

      TaskCompletedEvent http = events.get("http-out");
      assertThat(http.status().name()).isEqualTo("SUCCESS");
      assertThat(http.result().httpStatus()).isEqualTo(202);
      assertThat(http.result().summary())
          .startsWith("HTTP 202\nX-Request-Id: req-77\n\n{\"accepted\":true,\"token\":\"***\"");
      TaskCompletedEvent shell = events.get("shell-out");
      assertThat(shell.result().httpStatus()).isNull();
      assertThat(shell.result().summary())
          .isEqualTo("exit code 0\nstdout:\nhello from olga\napikey=***\n");

      List<TaskRun> httpRuns = new TaskRuns(runtime.dataSource()).latest("http-out", 10);
      assertThat(httpRuns).hasSize(1);
      assertThat(httpRuns.get(0).status()).isEqualTo("SUCCESS");
      assertThat(httpRuns.get(0).attempt()).isEqualTo(1);
      assertThat(httpRuns.get(0).durationMs()).isNotNull().isNotNegative();
      assertThat(httpRuns.get(0).output())
          .startsWith("HTTP 202\nX-Request-Id: req-77\n\n")
          .contains("\"accepted\":true", "\"password\":\"***\"", "\"signedWith\":\"***\"")
          .doesNotContain("Set-Cookie");

      String shown = CliRun.ax("task", "runs", "http-out", "--output").okOut();
      assertThat(shown).contains("SUCCESS", "HTTP 202", "X-Request-Id: req-77", "accepted");
      String shellShown = CliRun.ax("task", "runs", "shell-out").okOut();
      assertThat(shellShown).contains("exit code 0 stdout: hello from olga");

      JsonNode api = get(console.apiUrl() + "/tasks/http-out/runs?limit=5");
      assertThat(api.get("runs")).hasSize(1);
      assertThat(api.get("runs").get(0).get("output").asText()).isEqualTo(httpRuns.get(0).output());
      String instanceId = api.get("runs").get(0).get("instanceId").asText();
      JsonNode one = get(console.apiUrl() + "/tasks/http-out/runs/" + encode(instanceId) + "/1");
      assertThat(one.get("status").asText()).isEqualTo("SUCCESS");
      assertThat(status(console.apiUrl() + "/tasks/http-out/runs?namespace=billing"))
          .as("the task is the default namespace's: not found in another")
          .isEqualTo(404);
      String overApi;
      System.setProperty("AX_API_URL", console.apiUrl());
      try {
        overApi = CliRun.ax("task", "runs", "shell-out", "--limit", "3").okOut();
      } finally {
        System.clearProperty("AX_API_URL");
      }
      assertThat(AxJson.MAPPER.readTree(overApi).get("runs").get(0).get("output").asText())
          .as("the CLI through the API prints the API's JSON")
          .isEqualTo(shell.result().summary());

      List<String> written =
          List.of(
              shown,
              shellShown,
              overApi,
              api.toString(),
              AxJson.writeString(http),
              AxJson.writeString(shell),
              httpRuns.toString());
      for (String secret : SECRETS) {
        assertThat(written).as("nothing shown holds %s", secret).noneMatch(w -> w.contains(secret));
      }
    } finally {
      endpoint.stop(0);
    }
  }

  private static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;

  private static String encode(String segment) {
    return java.net.URLEncoder.encode(segment, UTF8).replace("+", "%20");
  }

  private static int status(String url) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static JsonNode get(String url) throws Exception {
    HttpResponse<String> answer =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return AxJson.MAPPER.readTree(answer.body());
  }
}
