package dev.ax.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.kafka.CommandSender;
import dev.ax.api.write.TaskCommands;
import dev.ax.common.contract.AxJson;
import io.javalin.http.Context;
import java.util.Iterator;
import java.util.Set;

/**
 * The API's lifecycle commands: {@code POST /api/v1/tasks/{taskId}/{action}} (pause, resume,
 * cancel, delete, run-now) and {@code POST /api/v1/groups/{group}/{action}} (pause, resume), each
 * with a body {@code {"reason": ..., "commandId": ..., "interrupt": ...}} (reason required; the
 * command id optional, so that a retried request can repeat it and ingest applies it once;
 * interrupt for cancel and delete). Sent through {@link TaskCommands}, as the CLI sends them, by
 * the caller's name; answered 202 with the command id and its record. Thread-safe.
 */
final class CommandRoutes {

  private static final Set<String> FIELDS = Set.of("reason", "commandId", "interrupt");

  private final TaskCommands commands;

  CommandRoutes(TaskCommands commands) {
    this.commands = commands;
  }

  /** A handler sending {@code type} for the task of the path. */
  io.javalin.http.Handler task(String type) {
    return ctx -> send(ctx, new TaskCommands.Target(type, ctx.pathParam("taskId"), null));
  }

  /** A handler sending {@code type} for the group of the path. */
  io.javalin.http.Handler group(String type) {
    return ctx -> send(ctx, new TaskCommands.Target(type, null, ctx.pathParam("group")));
  }

  private void send(Context ctx, TaskCommands.Target target) throws InterruptedException {
    ObjectNode body = body(ctx);
    String reason = text(body, "reason");
    if (reason == null) {
      throw ApiException.badRequest("a change needs a reason: {\"reason\": \"...\"}");
    }
    String commandId = text(body, "commandId");
    String problem = TaskCommands.problem(commandId, reason);
    if (problem != null) {
      throw ApiException.badRequest(problem);
    }
    ObjectNode fields = AxJson.MAPPER.createObjectNode();
    JsonNode interrupt = body.get("interrupt");
    if (interrupt != null && !interrupt.isNull()) {
      boolean stoppable = target.type().equals("CANCEL") || target.type().equals("DELETE");
      if (!interrupt.isBoolean() || !stoppable) {
        throw ApiException.badRequest("interrupt is true or false, for cancel and delete only");
      }
      if (interrupt.booleanValue()) {
        fields.put("interrupt", true);
      }
    }
    TaskCommands.Sent sent;
    try {
      sent = commands.send(fields, target, commandId, reason, ApiServer.caller(ctx).name());
    } catch (CommandSender.SendFailedException e) {
      throw new ApiException(503, "broker_unavailable", e.getMessage());
    }
    ctx.status(202);
    ApiServer.json(ctx, AxJson.MAPPER.valueToTree(sent));
  }

  private static ObjectNode body(Context ctx) {
    String text = ctx.body();
    if (text.isBlank()) {
      throw ApiException.badRequest("a change needs a JSON body with its reason");
    }
    JsonNode body;
    try {
      body = AxJson.MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest("the body is not JSON: " + e.getOriginalMessage());
    }
    if (!(body instanceof ObjectNode object)) {
      throw ApiException.badRequest("the body must be one JSON object");
    }
    for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw ApiException.badRequest("unknown field " + name + "; known: " + FIELDS);
      }
    }
    return object;
  }

  private static String text(ObjectNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual()) {
      throw ApiException.badRequest(field + " must be a string");
    }
    return value.asText();
  }
}
