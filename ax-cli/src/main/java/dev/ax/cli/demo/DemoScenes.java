package dev.ax.cli.demo;

import dev.ax.cli.kafka.TaskCommandJson;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** The scenes {@code ax demo} plays, all at once. Stateless. */
public final class DemoScenes {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private DemoScenes() {}

  /**
   * The standard demo: every trigger type, a flow with a join, a dead letter replayed, a pause and
   * resume, a cancel.
   *
   * @param http base URI of {@link DemoEndpoints}
   * @param sentAt when the commands are sent: the periodic tasks start a few seconds after it, so
   *     that their first firing is scheduled like every later one
   */
  public static List<DemoScene> standard(URI http, Instant sentAt) {
    return List.of(
        new OneShotScene(DemoPlan.standard(http)),
        new PeriodicScene(
            "CRON every 2 s (*/2 * * * * ?, overlap BUFFER_ONE), paused for 4 s, resumed, then"
                + " cancelled",
            step(
                "demo-cron",
                "noop",
                // BUFFER_ONE: the slot due as the RESUME's late firing runs waits for it, not
                // skipped.
                TaskCommandJson.create("demo-cron")
                    .cron("*/2 * * * * ?", "UTC")
                    .overlap("BUFFER_ONE")
                    .inProcess("noop")),
            2,
            Duration.ofSeconds(4),
            2),
        new PeriodicScene(
            "FIXED_RATE every 3 s (HTTP), cancelled after 3 runs",
            step(
                "demo-rate",
                "HTTP " + DemoEndpoints.OK,
                TaskCommandJson.create("demo-rate")
                    .fixedRate(Duration.ofSeconds(3), sentAt.plusSeconds(2))
                    .http(http.resolve(DemoEndpoints.OK), null)),
            3,
            Duration.ZERO,
            0),
        new PeriodicScene(
            "FIXED_DELAY 2 s after each 500 ms run, cancelled after 3 runs",
            step(
                "demo-delay",
                "sleep 500 ms",
                TaskCommandJson.create("demo-delay")
                    .fixedDelay(Duration.ofSeconds(2), sentAt.plusSeconds(2))
                    .inProcess("sleep")
                    .param("sleepMs", "500")),
            3,
            Duration.ZERO,
            0),
        new FlowScene(http, Duration.ofSeconds(5)),
        new DeadLetterScene(http, Duration.ofSeconds(2)),
        new CancelScene(Duration.ofSeconds(8)));
  }

  private static DemoPlan.Step step(String taskId, String executor, TaskCommandJson json) {
    return new DemoPlan.Step(
        taskId, executor, DemoPlan.Expectation.SUCCESS, json.timeout(TIMEOUT).toBytes());
  }
}
