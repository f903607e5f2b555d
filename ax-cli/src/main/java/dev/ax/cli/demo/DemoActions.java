package dev.ax.cli.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.client.ApiClient;
import dev.ax.common.contract.AxJson;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * What the demo's scenes do to AX while it runs, through AX's own HTTP API as the console does it
 * (lifecycle commands with a reason, task states, dead letters and their replay), each action
 * printed as one line; commands sent while the demo runs; and the fix of the demo's flaky endpoint.
 * Used by the demo's main thread only.
 */
public final class DemoActions {

  /** The state of a task the API does not know (yet). */
  public static final String NO_TASK = "-";

  /** Sends one command to the commands topic, as any producer would. */
  @FunctionalInterface
  public interface Sender {
    void send(DemoPlan.Step step) throws InterruptedException;
  }

  private final ApiClient api;
  private final Sender sender;
  private final DemoEndpoints endpoints;
  private final PrintWriter out;

  public DemoActions(ApiClient api, Sender sender, DemoEndpoints endpoints, PrintWriter out) {
    this.api = api;
    this.sender = sender;
    this.endpoints = endpoints;
    this.out = out;
  }

  /** Sends {@code step}'s command to the commands topic and says so. */
  public void send(DemoPlan.Step step, String why) throws InterruptedException {
    sender.send(step);
    say("sent " + step.key() + " (" + why + ")");
  }

  /**
   * Sends {@code action} ({@code pause}, {@code resume}, {@code cancel}) for {@code taskId} with
   * {@code reason}, through {@code POST /api/v1/tasks/{taskId}/{action}}.
   *
   * @return the command id the API answered with
   * @throws ApiClient.ApiError when the API refuses it or does not answer
   */
  public String command(String taskId, String action, String reason) throws InterruptedException {
    String path = "tasks/" + taskId + "/" + action;
    JsonNode sent = api.post(path, AxJson.MAPPER.createObjectNode().put("reason", reason));
    String commandId = sent.path("commandId").asText();
    say("POST /api/v1/" + path + " (" + reason + "): command " + commandId);
    return commandId;
  }

  /**
   * The task's state (ACTIVE, PAUSED, CANCELLED, ...), or {@link #NO_TASK} before ingest has it.
   */
  public String taskState(String taskId) throws InterruptedException {
    try {
      return api.get("tasks/" + taskId + "?instances=1").path("state").asText(NO_TASK);
    } catch (ApiClient.ApiError e) {
      if (e.status() == 404) {
        return NO_TASK;
      }
      throw e;
    }
  }

  /** The id of the open dead letter of {@code taskId}, if the dead-letter stage stored one. */
  public OptionalLong openDeadLetter(String taskId) throws InterruptedException {
    JsonNode letters = api.get("deadletters?state=OPEN&task=" + taskId).path("deadLetters");
    return letters.isEmpty()
        ? OptionalLong.empty()
        : OptionalLong.of(letters.get(0).get("id").asLong());
  }

  /** Replays dead letter {@code id} for {@code reason}; the API's message. */
  public String replay(long id, String reason) throws InterruptedException {
    String path = "deadletters/" + id + "/replay";
    JsonNode answer = api.post(path, AxJson.MAPPER.createObjectNode().put("reason", reason));
    say("POST /api/v1/" + path + " (" + reason + "): " + answer.path("message").asText());
    return answer.path("message").asText();
  }

  /** One line per dead letter, newest first: id, state, task, attempts, last error. */
  public List<String> deadLetters() throws InterruptedException {
    List<String> lines = new ArrayList<>();
    for (JsonNode letter : api.get("deadletters").path("deadLetters")) {
      lines.add(
          letter.path("id").asText()
              + "  "
              + letter.path("state").asText()
              + "  "
              + letter.path("taskId").asText()
              + "  after "
              + letter.path("attemptCount").asInt()
              + " attempt(s): "
              + letter.path("lastError").asText());
    }
    if (lines.isEmpty()) {
      lines.add("(none)");
    }
    return lines;
  }

  /** Makes the flaky endpoint answer 200 from now on. */
  public void fixEndpoint() {
    endpoints.fix();
    say("the flaky endpoint " + DemoEndpoints.FLAKY + " answers 200 from now on");
  }

  /** Prints one line about what the demo does or saw. */
  public void say(String line) {
    out.println("  >> " + line);
    out.flush();
  }
}
