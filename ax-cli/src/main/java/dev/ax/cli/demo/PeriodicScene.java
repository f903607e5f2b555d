package dev.ax.cli.demo;

import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A periodic task (CRON, FIXED_RATE or FIXED_DELAY) that runs a few times, optionally is paused for
 * a while and resumed, and is then cancelled. As planned when every run succeeded, none started
 * while the task was paused or after it was cancelled, and no attempt ran twice. Not thread-safe.
 */
public final class PeriodicScene extends DemoScene {

  /** How long after the cancel the scene still watches for a run. */
  private static final Duration SETTLE = Duration.ofSeconds(3);

  private enum Phase {
    RUNNING,
    PAUSING,
    PAUSED,
    RESUMING,
    RUNNING_AGAIN,
    CANCELLING,
    SETTLING,
    DONE
  }

  private final String title;
  private final DemoPlan.Step step;
  private final int runsBefore;
  private final Duration pauseFor;
  private final int runsAfter;
  private final List<TaskCompletedEvent> runs = new ArrayList<>();
  private Phase phase = Phase.RUNNING;
  private int runsAtPause;
  private int runsAtResume;
  private long pauseSentAtMs;
  private long pausedAtMs;
  private long resumeSentAtMs;
  private long resumedAtMs;
  private long cancelledAtMs;

  /**
   * @param runsBefore successful runs before the pause (or the cancel, without a pause)
   * @param pauseFor how long to hold the task paused; {@link Duration#ZERO} for no pause
   * @param runsAfter successful runs after the resume, before the cancel
   */
  public PeriodicScene(
      String title, DemoPlan.Step step, int runsBefore, Duration pauseFor, int runsAfter) {
    this.title = title;
    this.step = step;
    this.runsBefore = runsBefore;
    this.pauseFor = pauseFor;
    this.runsAfter = runsAfter;
  }

  @Override
  public String title() {
    return title;
  }

  @Override
  public List<DemoPlan.Step> commands() {
    return List.of(step);
  }

  @Override
  public boolean owns(String taskId) {
    return step.key().equals(taskId);
  }

  @Override
  public void completed(TaskCompletedEvent event) {
    runs.add(event);
    if (event.status() != InstanceStatus.SUCCESS) {
      abort(
          step.key()
              + " run "
              + event.instanceId()
              + " ended "
              + event.status()
              + ": "
              + event.error());
    }
  }

  @Override
  public void advance(DemoActions actions, long nowMs) throws InterruptedException {
    String taskId = step.key();
    switch (phase) {
      case RUNNING -> {
        if (successes() >= runsBefore) {
          if (pauseFor.isZero()) {
            cancel(actions);
          } else {
            runsAtPause = successes();
            pauseSentAtMs = nowMs;
            actions.command(taskId, "pause", "demo: pause after " + runsAtPause + " runs");
            phase = Phase.PAUSING;
          }
        }
      }
      case PAUSING -> {
        if (isIn(actions, TaskState.PAUSED)) {
          pausedAtMs = nowMs;
          actions.say(
              taskId + " is PAUSED; no run may start for the next " + pauseFor.toSeconds() + " s");
          phase = Phase.PAUSED;
        }
      }
      case PAUSED -> {
        if (nowMs >= pausedAtMs + pauseFor.toMillis()) {
          resumeSentAtMs = nowMs;
          actions.command(taskId, "resume", "demo: resume after " + pauseFor.toSeconds() + " s");
          phase = Phase.RESUMING;
        }
      }
      case RESUMING -> {
        if (isIn(actions, TaskState.ACTIVE)) {
          resumedAtMs = nowMs;
          runsAtResume = successes();
          phase = Phase.RUNNING_AGAIN;
        }
      }
      case RUNNING_AGAIN -> {
        if (successes() - runsAtResume >= runsAfter) {
          cancel(actions);
        }
      }
      case CANCELLING -> {
        if (isIn(actions, TaskState.CANCELLED)) {
          cancelledAtMs = nowMs;
          actions.say(taskId + " is CANCELLED; no run may start after it");
          phase = Phase.SETTLING;
        }
      }
      case SETTLING -> {
        if (nowMs >= cancelledAtMs + SETTLE.toMillis()) {
          phase = Phase.DONE;
        }
      }
      case DONE -> {}
    }
  }

  /**
   * A firing due while the task was paused runs at the resume (misfire FIRE_ONCE_NOW, the default,
   * when it is less than AX_TICKER_MISFIRE_THRESHOLD late): late by design.
   */
  @Override
  public boolean lateByDesign(TaskCompletedEvent event) {
    return pauseSentAtMs > 0
        && event.dueAtMs() >= pauseSentAtMs
        && (resumedAtMs == 0 || event.dueAtMs() < resumedAtMs);
  }

  private void cancel(DemoActions actions) throws InterruptedException {
    actions.command(step.key(), "cancel", "demo: cancel after " + successes() + " runs");
    phase = Phase.CANCELLING;
  }

  private boolean isIn(DemoActions actions, TaskState state) throws InterruptedException {
    return actions.taskState(step.key()).equals(state.name());
  }

  private int successes() {
    return (int) runs.stream().filter(e -> e.status() == InstanceStatus.SUCCESS).count();
  }

  @Override
  protected boolean complete() {
    return phase == Phase.DONE;
  }

  @Override
  protected List<String> check() {
    List<String> differences = new ArrayList<>();
    Set<String> attempts = new HashSet<>();
    for (TaskCompletedEvent run : runs) {
      String label = step.key() + " run " + run.instanceId();
      if (run.status() != InstanceStatus.SUCCESS) {
        differences.add(label + " ended " + run.status() + ": " + run.error());
      }
      if (!attempts.add(run.instanceId() + "#" + run.attempt())) {
        differences.add(label + " attempt " + run.attempt() + " ran twice");
      }
      if (pausedAtMs > 0 && run.startedAtMs() > pausedAtMs && run.startedAtMs() < resumeSentAtMs) {
        differences.add(label + " started while the task was paused");
      }
      if (cancelledAtMs > 0 && run.startedAtMs() > cancelledAtMs) {
        differences.add(label + " started after the task was cancelled");
      }
    }
    if (phase != Phase.DONE) {
      differences.add(
          step.key() + " stopped at " + phase + " after " + successes() + " successful runs");
    }
    return differences;
  }

  @Override
  public String outcome() {
    if (pauseFor.isZero()) {
      return step.key() + ": " + successes() + " runs, cancelled, none after";
    }
    long caughtUp = runs.stream().filter(this::lateByDesign).count();
    return step.key()
        + ": "
        + runsAtPause
        + " runs, paused "
        + pauseFor.toSeconds()
        + " s with none, resumed ("
        + caughtUp
        + " firing(s) due while paused ran at once: misfire FIRE_ONCE_NOW), "
        + (successes() - runsAtPause - caughtUp)
        + " more on time, cancelled, none after";
  }
}
