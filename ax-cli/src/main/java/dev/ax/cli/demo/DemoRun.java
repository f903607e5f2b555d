package dev.ax.cli.demo;

import dev.ax.api.client.ApiClient;
import dev.ax.cli.text.EventLines;
import dev.ax.common.contract.TaskCompletedEvent;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * One run of the demo's scenes: routes each completion event and rejection to the scene that owns
 * its task (printing it as one line), moves every unfinished scene on, and at the end says what
 * differs from the plan. Not thread-safe: the demo's main thread feeds it.
 */
public final class DemoRun {

  private final List<DemoScene> scenes;
  private final DemoActions actions;
  private final PrintWriter out;
  private final LongSupplier clockMs;
  private final DemoLateness lateness = new DemoLateness();
  private final List<String> strays = new ArrayList<>();

  public DemoRun(
      List<DemoScene> scenes, DemoActions actions, PrintWriter out, LongSupplier clockMs) {
    this.scenes = List.copyOf(scenes);
    this.actions = actions;
    this.out = out;
    this.clockMs = clockMs;
  }

  /** Every scene's commands, in the order to send them. */
  public List<DemoPlan.Step> commands() {
    return scenes.stream().flatMap(scene -> scene.commands().stream()).toList();
  }

  /** A completion event: printed, and given to its scene. */
  public void completed(TaskCompletedEvent event) {
    out.println("  " + EventLines.completed(event));
    Optional<DemoScene> owner = owner(event.taskId());
    lateness.completed(event, owner.map(scene -> scene.lateByDesign(event)).orElse(false));
    owner.ifPresentOrElse(
        scene -> scene.completed(event),
        () -> strays.add(event.taskId() + " completed but is no task of the demo"));
  }

  /** A rejected command: printed, and given to its scene. */
  public void rejected(String key, String reason) {
    out.println("  " + EventLines.rejected(key, reason));
    owner(key)
        .ifPresentOrElse(
            scene -> scene.rejected(key, reason),
            () -> strays.add(key + " was rejected but is no command of the demo: " + reason));
  }

  private Optional<DemoScene> owner(String taskId) {
    return scenes.stream().filter(scene -> taskId != null && scene.owns(taskId)).findFirst();
  }

  /**
   * Moves each unfinished scene on; a scene whose action the API refuses is given up with the API's
   * reason.
   *
   * @return true when every scene has finished
   */
  public boolean advance() throws InterruptedException {
    for (DemoScene scene : scenes) {
      if (scene.finished()) {
        continue;
      }
      try {
        scene.advance(actions, clockMs.getAsLong());
      } catch (ApiClient.ApiError e) {
        if (worthAskingAgain(e)) {
          continue; // the next round asks again
        }
        actions.say("the API refused: " + e.code() + ": " + e.getMessage());
        scene.abort(scene.title() + ": the API refused an action: " + e.getMessage());
      }
    }
    return scenes.stream().allMatch(DemoScene::finished);
  }

  /** An answer worth asking again: too many requests, a server busy or not answering. */
  private static boolean worthAskingAgain(ApiClient.ApiError e) {
    return e.status() == 429 || e.status() == 503 || e.status() == 0;
  }

  /** Runs {@link #advance} and {@code poll} (which feeds events in) until done or {@code stop}. */
  public boolean run(Runnable poll, BooleanSupplier stop) throws InterruptedException {
    boolean done = false;
    while (!done && !stop.getAsBoolean()) {
      poll.run();
      done = advance();
    }
    return done;
  }

  /** Every difference from the plan: the scenes', late starts, events no scene owns. */
  public List<String> differences() {
    List<String> all = new ArrayList<>();
    scenes.forEach(scene -> all.addAll(scene.differences()));
    all.addAll(lateness.differences());
    all.addAll(strays);
    return all;
  }

  /** The report: the one-shot table, then one line per scene, the lateness, the dead letters. */
  public void printReport() throws InterruptedException {
    scenes.stream()
        .filter(OneShotScene.class::isInstance)
        .forEach(scene -> ((OneShotScene) scene).printDetails(out));
    out.println();
    out.println("What each part of the demo showed:");
    for (DemoScene scene : scenes) {
      List<String> differences = scene.differences();
      boolean ok = scene.finished() && differences.isEmpty();
      out.println("  " + (ok ? "ok    " : "NOT OK") + " " + scene.title());
      out.println(
          "         "
              + (ok
                  ? scene.outcome()
                  : differences.isEmpty() ? "did not finish" : differences.get(0)));
    }
    out.println("  Lateness: " + lateness.describe());
    out.println();
    out.println("Dead letters (ax dlq list, GET /api/v1/deadletters):");
    try {
      actions.deadLetters().forEach(line -> out.println("  " + line));
    } catch (ApiClient.ApiError e) {
      out.println("  (not read: " + e.code() + ": " + e.getMessage() + ")");
    }
    out.flush();
  }
}
