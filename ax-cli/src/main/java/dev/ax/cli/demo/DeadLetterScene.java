package dev.ax.cli.demo;

import dev.ax.cli.kafka.TaskCommandJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.InstanceStatus;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * A ONCE HTTP task against an endpoint that is down: it fails, is retried twice with backoff (1 s,
 * then 2 s, no jitter) and becomes a dead letter; the demo then fixes the endpoint and replays the
 * letter through the API, and the replayed run succeeds. Not thread-safe.
 */
public final class DeadLetterScene extends DemoScene {

  static final String TASK_ID = "demo-flaky";
  private static final int RETRIES = 2;

  private enum Phase {
    FAILING,
    FINDING_LETTER,
    REPLAYED,
    DONE
  }

  private final DemoPlan.Step step;
  private final List<TaskCompletedEvent> failures = new ArrayList<>();
  private final List<TaskCompletedEvent> afterReplay = new ArrayList<>();
  private Phase phase = Phase.FAILING;
  private long letterId;

  public DeadLetterScene(URI http, Duration dueIn) {
    this.step =
        new DemoPlan.Step(
            TASK_ID,
            "HTTP " + DemoEndpoints.FLAKY,
            DemoPlan.Expectation.SUCCESS,
            TaskCommandJson.create(TASK_ID)
                .onceAfter(dueIn)
                .http(http.resolve(DemoEndpoints.FLAKY), null)
                .timeout(Duration.ofSeconds(5))
                .retries(RETRIES, Duration.ofSeconds(1), Duration.ofSeconds(2))
                .toBytes());
  }

  @Override
  public String title() {
    return "retries with backoff into a dead letter, replayed once the endpoint is fixed";
  }

  @Override
  public List<DemoPlan.Step> commands() {
    return List.of(step);
  }

  @Override
  public boolean owns(String taskId) {
    return TASK_ID.equals(taskId);
  }

  @Override
  public void completed(TaskCompletedEvent event) {
    (phase == Phase.REPLAYED || phase == Phase.DONE ? afterReplay : failures).add(event);
  }

  @Override
  public void advance(DemoActions actions, long nowMs) throws InterruptedException {
    switch (phase) {
      case FAILING -> {
        if (failures.stream().anyMatch(e -> e.instanceStatus() == InstanceStatus.DEAD)) {
          phase = Phase.FINDING_LETTER;
        }
      }
      case FINDING_LETTER -> {
        OptionalLong letter = actions.openDeadLetter(TASK_ID);
        if (letter.isPresent()) {
          letterId = letter.getAsLong();
          actions.say(
              TASK_ID + " is dead letter " + letterId + " after " + failures.size() + " attempts");
          actions.fixEndpoint();
          actions.replay(letterId, "demo: the endpoint is fixed");
          phase = Phase.REPLAYED;
        }
      }
      case REPLAYED -> {
        if (!afterReplay.isEmpty()) {
          phase = Phase.DONE;
        }
      }
      case DONE -> {}
    }
  }

  @Override
  protected boolean complete() {
    return phase == Phase.DONE;
  }

  @Override
  protected List<String> check() {
    List<String> differences = new ArrayList<>();
    if (failures.size() != RETRIES + 1) {
      differences.add(
          TASK_ID
              + " failed "
              + failures.size()
              + " times before the replay, expected "
              + (RETRIES + 1));
    }
    for (TaskCompletedEvent failure : failures) {
      if (failure.status() != InstanceStatus.FAILED) {
        differences.add(TASK_ID + " attempt " + failure.attempt() + " ended " + failure.status());
      }
    }
    if (phase == Phase.DONE) {
      if (afterReplay.size() != 1 || afterReplay.get(0).status() != InstanceStatus.SUCCESS) {
        differences.add(
            TASK_ID
                + " after the replay: "
                + afterReplay.size()
                + " runs, first "
                + afterReplay.get(0).status());
      }
    } else {
      differences.add(TASK_ID + " stopped at " + phase);
    }
    return differences;
  }

  @Override
  public String outcome() {
    StringBuilder gaps = new StringBuilder();
    for (int i = 1; i < failures.size(); i++) {
      gaps.append(i == 1 ? "" : ", ")
          .append(failures.get(i).startedAtMs() - failures.get(i - 1).finishedAtMs())
          .append(" ms");
    }
    return TASK_ID
        + ": "
        + failures.size()
        + " attempts failed (retried after "
        + gaps
        + "), dead letter "
        + letterId
        + " replayed, the replay succeeded";
  }
}
