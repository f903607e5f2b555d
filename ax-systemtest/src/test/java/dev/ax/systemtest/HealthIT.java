package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ticker.TickerMain;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A stage process's probes: {@code /health/live} answers 200 at once, {@code /health/ready} 200
 * once the database, the broker and the stage's own condition (the ticker knows whether it leads)
 * are fine, with each check's outcome as JSON; {@code /metrics} is served beside them.
 */
@ExtendWith(AxInfraExtension.class)
class HealthIT {

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @Test
  void aTickerProcessIsLiveThenReadyWithEveryCheckNamed(AxTestEnv env) throws Exception {
    int port = StageProcess.freeLoopbackPort();
    String base = "http://127.0.0.1:" + port;
    Process ticker =
        StageProcess.start(
            env,
            TickerMain.class,
            "health-" + port,
            Map.of("AX_METRICS_BIND", "127.0.0.1:" + port));
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> get(base + "/health/live").statusCode() == 200);
      HttpResponse<String> ready =
          await()
              .atMost(Duration.ofSeconds(60))
              .ignoreExceptions()
              .until(() -> get(base + "/health/ready"), r -> r.statusCode() == 200);
      assertThat(ready.headers().firstValue("Content-Type"))
          .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
      assertThat(ready.body())
          .contains("\"status\":\"ready\"")
          .contains("\"database\":\"ok\"", "\"broker\":\"ok\"", "\"ax-ticker\":\"ok\"");
      HttpResponse<String> metrics = get(base + "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body()).contains("node=\"health-" + port + "\"");
    } finally {
      ticker.destroy();
      assertThat(ticker.waitFor(30, TimeUnit.SECONDS)).as("stops on SIGTERM").isTrue();
    }
  }

  private HttpResponse<String> get(String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
