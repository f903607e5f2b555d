package dev.ax.api.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.read.DeadLetterView;
import dev.ax.api.write.DeadLetterActions;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.DeadLetterState;
import dev.ax.common.model.Namespace;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.deadletter.DeadLetterStore.DeadLetter;
import dev.ax.deadletter.DeadLetterStore.ReplayResult;
import io.javalin.http.Context;
import java.util.Locale;
import java.util.Set;

/**
 * The API's dead letters: {@code GET /api/v1/deadletters} (newest first, filtered), {@code GET
 * /api/v1/deadletters/{id}} (attempts, the task as it was, masked as {@code ax dlq show} masks it,
 * the last stack trace), and {@code POST .../{id}/replay} and {@code .../{id}/discard} with a
 * reason, as {@code ax dlq replay} and {@code discard} do them. Thread-safe.
 */
final class DeadLetterRoutes {

  private final DeadLetterStore letters;
  private final DeadLetterActions actions;

  DeadLetterRoutes(DeadLetterStore letters, DeadLetterActions actions) {
    this.letters = letters;
    this.actions = actions;
  }

  void list(Context ctx) {
    String state = QueryParams.oneOf(ctx, "state", DeadLetterState.class);
    String task = QueryParams.text(ctx, "task");
    String group = QueryParams.text(ctx, "group");
    DeadLetterStore.Filter filter =
        new DeadLetterStore.Filter(
            task == null ? null : ApiServer.storedId(ctx, task),
            group == null ? null : ApiServer.storedId(ctx, group),
            null,
            null,
            state == null ? null : DeadLetterState.valueOf(state),
            ApiServer.namespace(ctx));
    int limit = QueryParams.integer(ctx, "limit", 50, 1, TaskRoutes.MAX_LIMIT);
    ArrayNode page = AxJson.MAPPER.createArrayNode();
    letters.list(filter, limit).forEach(letter -> page.add(DeadLetterView.summary(letter)));
    ObjectNode body = AxJson.MAPPER.createObjectNode();
    body.set("deadLetters", page);
    ApiServer.json(ctx, body);
  }

  void letter(Context ctx) {
    long id = id(ctx);
    boolean reveal = QueryParams.flag(ctx, "reveal");
    if (reveal && !ApiServer.caller(ctx).mayOperate()) {
      throw new ApiException(
          403, "forbidden", "revealing parameters and headers needs the operate role");
    }
    DeadLetter letter =
        letters
            .find(id)
            .filter(found -> inNamespace(ctx, found))
            .orElseThrow(() -> ApiException.notFound("no dead letter " + id));
    ApiServer.json(ctx, DeadLetterView.detail(letter, reveal));
  }

  void replay(Context ctx) throws InterruptedException {
    long id = ownId(ctx);
    JsonBody body = JsonBody.of(ctx, Set.of("reason", "force"));
    boolean force = Boolean.TRUE.equals(body.flag("force"));
    ReplayResult result = actions.replay(id, ApiServer.caller(ctx).name(), body.reason(), force);
    String message = actions.describe(result, id, "force: true");
    if (result == ReplayResult.NOT_FOUND) {
      throw ApiException.notFound(message);
    }
    if (!result.replayed()) {
      throw new ApiException(409, result.name().toLowerCase(Locale.ROOT), message);
    }
    ApiServer.json(
        ctx, AxJson.MAPPER.createObjectNode().put("result", result.name()).put("message", message));
  }

  void discard(Context ctx) {
    long id = ownId(ctx);
    JsonBody body = JsonBody.of(ctx, Set.of("reason"));
    switch (actions.discard(id, ApiServer.caller(ctx).name(), body.reason())) {
      case NOT_FOUND -> throw ApiException.notFound("no dead letter " + id);
      case NOT_OPEN ->
          throw new ApiException(
              409, "not_open", "dead letter " + id + " is not open (replayed or discarded before)");
      case DISCARDED ->
          ApiServer.json(
              ctx,
              AxJson.MAPPER
                  .createObjectNode()
                  .put("result", DeadLetterActions.DiscardResult.DISCARDED.name()));
    }
  }

  /** Whether {@code letter}'s task is of the request's namespace. */
  private static boolean inNamespace(Context ctx, DeadLetter letter) {
    return Namespace.of(letter.taskId()).equals(ApiServer.namespace(ctx));
  }

  /** The path's id, when it names a dead letter of the request's namespace (else 404). */
  private long ownId(Context ctx) {
    long id = id(ctx);
    letters
        .find(id)
        .filter(found -> inNamespace(ctx, found))
        .orElseThrow(() -> ApiException.notFound("no dead letter " + id));
    return id;
  }

  private static long id(Context ctx) {
    String text = ctx.pathParam("id");
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw ApiException.badRequest("a dead letter id is a whole number: " + text);
    }
  }
}
