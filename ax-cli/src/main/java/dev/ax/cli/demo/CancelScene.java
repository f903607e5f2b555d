package dev.ax.cli.demo;

import dev.ax.cli.kafka.TaskCommandJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.TaskState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A ONCE task cancelled before it is due: as planned when it is CANCELLED and has not run a second
 * after its due time. Not thread-safe.
 */
public final class CancelScene extends DemoScene {

  static final String TASK_ID = "demo-cancelled";
  private static final Duration WATCH_AFTER_DUE = Duration.ofSeconds(1);

  private enum Phase {
    CREATING,
    CANCELLING,
    WAITING,
    DONE
  }

  private final Duration dueIn;
  private final DemoPlan.Step step;
  private final List<TaskCompletedEvent> runs = new ArrayList<>();
  private Phase phase = Phase.CREATING;
  private long activeAtMs;

  public CancelScene(Duration dueIn) {
    this.dueIn = dueIn;
    this.step =
        new DemoPlan.Step(
            TASK_ID,
            "noop",
            DemoPlan.Expectation.IGNORED,
            TaskCommandJson.create(TASK_ID)
                .onceAfter(dueIn)
                .inProcess("noop")
                .timeout(Duration.ofSeconds(5))
                .toBytes());
  }

  @Override
  public String title() {
    return "a one-shot task cancelled before it is due";
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
    runs.add(event);
  }

  @Override
  public void advance(DemoActions actions, long nowMs) throws InterruptedException {
    switch (phase) {
      case CREATING -> {
        if (actions.taskState(TASK_ID).equals(TaskState.ACTIVE.name())) {
          // Ingest stored it, due dueIn after it did: by then at the latest.
          activeAtMs = nowMs;
          actions.command(TASK_ID, "cancel", "demo: not needed after all");
          phase = Phase.CANCELLING;
        }
      }
      case CANCELLING -> {
        if (actions.taskState(TASK_ID).equals(TaskState.CANCELLED.name())) {
          actions.say(TASK_ID + " is CANCELLED; it must not run when it comes due");
          phase = Phase.WAITING;
        }
      }
      case WAITING -> {
        if (nowMs >= activeAtMs + dueIn.toMillis() + WATCH_AFTER_DUE.toMillis()) {
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
    if (!runs.isEmpty()) {
      differences.add(TASK_ID + " ran " + runs.size() + " time(s) although it was cancelled");
    }
    if (phase != Phase.DONE) {
      differences.add(TASK_ID + " stopped at " + phase);
    }
    return differences;
  }

  @Override
  public String outcome() {
    return TASK_ID + ": cancelled before it was due, did not run";
  }
}
