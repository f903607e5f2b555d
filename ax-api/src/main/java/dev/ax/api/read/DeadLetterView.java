package dev.ax.api.read;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import dev.ax.deadletter.DeadLetterStore.DeadLetter;
import java.time.Instant;

/**
 * A dead letter as JSON, the same for {@code ax dlq list/show --json} and the API: a summary (id,
 * state, task, group, instance, when stored, how many attempts, the last error) and the detail
 * (besides: why its state, the attempts, the task as it was with its secrets masked unless
 * revealed, the last stack trace). Stateless.
 */
public final class DeadLetterView {

  private DeadLetterView() {}

  /** The letter's summary. */
  public static ObjectNode summary(DeadLetter letter) {
    JsonNode attempts = tree(letter.attemptsJson());
    return AxJson.MAPPER
        .createObjectNode()
        .put("id", letter.id())
        .put("state", letter.state().name())
        .put("taskId", letter.taskId())
        .put("group", letter.group())
        .put("instanceId", letter.instanceId())
        .put("createdAtMs", letter.createdAtMs())
        .put("createdAt", Instant.ofEpochMilli(letter.createdAtMs()).toString())
        .put("attemptCount", attempts.isArray() ? attempts.size() : 0)
        .put("lastError", letter.lastError());
  }

  /** The letter in full; parameter and header values masked unless {@code reveal}. */
  public static ObjectNode detail(DeadLetter letter, boolean reveal) {
    ObjectNode body = summary(letter);
    body.put("stateReason", letter.stateReason());
    body.put("updatedAtMs", letter.updatedAtMs());
    body.set("attempts", tree(letter.attemptsJson()));
    body.set("task", SecretMask.masked(tree(letter.taskSnapshot()), reveal));
    body.put("lastStack", letter.lastStack());
    return body;
  }

  /** The stored JSON {@code text}; as a string where it does not parse; JSON null if missing. */
  private static JsonNode tree(String text) {
    if (text == null) {
      return AxJson.MAPPER.nullNode();
    }
    try {
      return AxJson.MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      return AxJson.MAPPER.getNodeFactory().textNode(text);
    }
  }
}
