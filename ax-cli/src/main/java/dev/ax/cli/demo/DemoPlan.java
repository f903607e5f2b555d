package dev.ax.cli.demo;

import dev.ax.cli.kafka.TaskCommandJson;
import dev.ax.common.model.InstanceStatus;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The one-shot commands {@code ax demo} sends and how each should end: in-process {@code noop} and
 * {@code sleep} tasks that succeed, HTTP tasks against the demo's own endpoints, a task that times
 * out (without retries, so it becomes a dead letter), a duplicate create that ingest ignores, and
 * two commands that are rejected with a reason. Immutable.
 */
public final class DemoPlan {

  /** How a command should end. */
  public enum Expectation {
    SUCCESS(InstanceStatus.SUCCESS),
    FAILED(InstanceStatus.FAILED),
    TIMEOUT(InstanceStatus.TIMEOUT),
    /** A second create of an existing taskId: no new instance, no second run. */
    IGNORED(null),
    /** On the rejected topic with a reason. */
    REJECTED(null);

    private final InstanceStatus status;

    Expectation(InstanceStatus status) {
      this.status = status;
    }

    /** The final status of the task's one run; null when the command must not run anything. */
    public InstanceStatus status() {
      return status;
    }
  }

  /**
   * One command to send.
   *
   * @param key the Kafka key (the taskId, also for commands that are invalid)
   * @param executor what runs it, for the summary table
   * @param value the message bytes, exactly as sent
   */
  public record Step(String key, String executor, Expectation expected, byte[] value) {
    public boolean runs() {
      return expected.status() != null;
    }
  }

  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final List<Step> steps;

  private DemoPlan(List<Step> steps) {
    this.steps = List.copyOf(steps);
  }

  /**
   * The standard mix.
   *
   * @param http base URI of {@link DemoEndpoints}, e.g. {@code http://127.0.0.1:41234}
   */
  public static DemoPlan standard(URI http) {
    List<Step> steps = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      steps.add(noop("demo-noop-" + i, Duration.ofSeconds(i)));
    }
    steps.add(sleep("demo-sleep-1", Duration.ofMillis(1500)));
    steps.add(sleep("demo-sleep-2", Duration.ofMillis(2500)));
    steps.add(http("demo-http-ok-1", http.resolve(DemoEndpoints.OK), Duration.ofMillis(1500)));
    steps.add(http("demo-http-ok-2", http.resolve(DemoEndpoints.OK), Duration.ofMillis(3000)));
    steps.add(
        new Step(
            "demo-timeout",
            "sleep 5000 ms, timeout 1000 ms",
            Expectation.TIMEOUT,
            inProcess("demo-timeout", Duration.ofSeconds(1), "sleep")
                .param("sleepMs", "5000")
                .timeout(Duration.ofSeconds(1))
                .maxRetries(0)
                .toBytes()));
    steps.add(
        new Step(
            "demo-noop-1",
            "noop (create again)",
            Expectation.IGNORED,
            inProcess("demo-noop-1", Duration.ofMillis(500), "noop").timeout(TIMEOUT).toBytes()));
    steps.add(
        new Step(
            "demo-malformed",
            "-",
            Expectation.REJECTED,
            "{\"v\":1,\"taskId\":\"demo-malformed\",\"trigger\":{\"type\":\"ONCE\","
                .getBytes(StandardCharsets.UTF_8)));
    steps.add(
        new Step(
            "demo-negative-delay",
            "noop",
            Expectation.REJECTED,
            TaskCommandJson.create("demo-negative-delay")
                .onceAfterMs(-5000)
                .inProcess("noop")
                .timeout(TIMEOUT)
                .toBytes()));
    return new DemoPlan(steps);
  }

  private static Step noop(String taskId, Duration delay) {
    return new Step(
        taskId,
        "noop",
        Expectation.SUCCESS,
        inProcess(taskId, delay, "noop").timeout(TIMEOUT).toBytes());
  }

  private static Step sleep(String taskId, Duration delay) {
    return new Step(
        taskId,
        "sleep 500 ms",
        Expectation.SUCCESS,
        inProcess(taskId, delay, "sleep").param("sleepMs", "500").timeout(TIMEOUT).toBytes());
  }

  /** A command for {@code taskId} that runs in-process {@code handler} once, {@code delay} on. */
  private static TaskCommandJson inProcess(String taskId, Duration delay, String handler) {
    return TaskCommandJson.create(taskId).onceAfter(delay).inProcess(handler);
  }

  private static Step http(String taskId, URI url, Duration delay) {
    return new Step(
        taskId,
        "HTTP " + url.getPath(),
        Expectation.SUCCESS,
        TaskCommandJson.create(taskId).onceAfter(delay).http(url, null).timeout(TIMEOUT).toBytes());
  }

  /** Every command, in the order to send them. */
  public List<Step> steps() {
    return steps;
  }

  /** The commands that should each run once, with the status they should end with. */
  public List<Step> runs() {
    return steps.stream().filter(Step::runs).toList();
  }

  /** The commands that should be rejected. */
  public List<Step> rejections() {
    return steps.stream().filter(s -> s.expected() == Expectation.REJECTED).toList();
  }

  /** The second creates of existing tasks. */
  public List<Step> duplicates() {
    return steps.stream().filter(s -> s.expected() == Expectation.IGNORED).toList();
  }
}
