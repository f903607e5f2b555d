package dev.ax.cli.demo;

import dev.ax.common.contract.TaskCompletedEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * One thing {@code ax demo} shows (one-shot tasks, a CRON task paused and resumed, a flow, a dead
 * letter replayed, ...): the commands it sends at the start, the completion events of its tasks,
 * what it does while it runs ({@link #advance}), and at the end whether everything went as planned.
 * Not thread-safe: driven by the demo's main thread.
 */
public abstract class DemoScene {

  private final List<String> problems = new ArrayList<>();
  private boolean aborted;

  /** One line: what the scene shows. */
  public abstract String title();

  /** The commands to send when the demo starts, in order. */
  public abstract List<DemoPlan.Step> commands();

  /** True when {@code taskId} is one of this scene's tasks. */
  public abstract boolean owns(String taskId);

  /** A completion event of one of its tasks. */
  public abstract void completed(TaskCompletedEvent event);

  /**
   * True when {@code event}, one of its own, started late on purpose (see {@link DemoLateness}).
   */
  public boolean lateByDesign(TaskCompletedEvent event) {
    return false;
  }

  /** A rejection of one of its commands: the scene cannot go on. */
  public void rejected(String key, String reason) {
    abort(key + " was rejected: " + reason);
  }

  /**
   * Moves the scene on at {@code nowMs} (the demo's clock): sends the next lifecycle command when
   * its moment has come. Called about every 200 ms until {@link #finished}.
   */
  public void advance(DemoActions actions, long nowMs) throws InterruptedException {}

  /** True when nothing more is to happen: completed, or given up. */
  public final boolean finished() {
    return aborted || complete();
  }

  /** True when everything the scene waits for has happened. */
  protected abstract boolean complete();

  /** Every way the outcome differs from the plan, one sentence each; empty when none. */
  public final List<String> differences() {
    List<String> all = new ArrayList<>(problems);
    all.addAll(check());
    return all;
  }

  /** The differences the scene finds in what it saw. */
  protected abstract List<String> check();

  /** One line for the summary: what happened. */
  public abstract String outcome();

  /** Gives the scene up for {@code reason} (an action failed); it counts as not as planned. */
  public final void abort(String reason) {
    problem(reason);
    aborted = true;
  }

  /** Notes a difference from the plan. */
  protected final void problem(String difference) {
    problems.add(difference);
  }
}
