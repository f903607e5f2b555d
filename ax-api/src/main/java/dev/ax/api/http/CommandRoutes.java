package dev.ax.api.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.kafka.CommandSender;
import dev.ax.api.read.SecretMask;
import dev.ax.api.write.TaskCommands;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.Namespace;
import io.javalin.http.Context;
import java.util.List;
import java.util.Set;

/**
 * The API's lifecycle commands: {@code POST /api/v1/tasks/{taskId}/{action}} (pause, resume,
 * cancel, delete, run-now, and update with the task's new {@code spec}) and {@code POST
 * /api/v1/groups/{group}/{action}} (pause, resume), each with a body {@code {"reason": ...,
 * "commandId": ..., "interrupt": ...}} (reason required; the command id optional, so that a retried
 * request can repeat it and ingest applies it once; interrupt for cancel and delete). Sent through
 * {@link TaskCommands}, as the CLI sends them, by the caller's name; answered 202 with the command
 * id and its record. Thread-safe.
 */
final class CommandRoutes {

  private static final Set<String> FIELDS = Set.of("reason", "commandId", "interrupt");
  private static final Set<String> UPDATE_FIELDS = Set.of("reason", "commandId", "spec");

  private final TaskCommands commands;

  CommandRoutes(TaskCommands commands) {
    this.commands = commands;
  }

  /** A handler sending {@code type} for the task of the path. */
  io.javalin.http.Handler task(String type) {
    return ctx -> send(ctx, new TaskCommands.Target(type, local(ctx, "taskId"), null, ns(ctx)));
  }

  /** A handler sending {@code type} for the group of the path. */
  io.javalin.http.Handler group(String type) {
    return ctx -> send(ctx, new TaskCommands.Target(type, null, local(ctx, "group"), ns(ctx)));
  }

  /**
   * {@code POST /api/v1/tasks/{taskId}/update}: an UPDATE with the body's {@code spec} (a CREATE's
   * fields; the command's own fields are set here, whatever the spec says), as {@code ax task
   * update --file} sends it. Ingest validates the spec as it validates any producer's.
   */
  void update(Context ctx) throws InterruptedException {
    JsonBody body = JsonBody.of(ctx, UPDATE_FIELDS);
    ObjectNode spec = body.object("spec");
    if (spec == null) {
      throw ApiException.badRequest("an update needs the task's whole spec: {\"spec\": {...}}");
    }
    List<String> masked = SecretMask.stillMasked(spec);
    if (!masked.isEmpty()) {
      throw ApiException.badRequest(
          "the spec still holds masked values ("
              + SecretMask.MASK
              + ") in "
              + masked
              + ": give the real ones, or they would become the new values");
    }
    ObjectNode fields = AxJson.MAPPER.createObjectNode();
    fields.setAll(spec);
    sendChecked(
        ctx, body, fields, new TaskCommands.Target("UPDATE", local(ctx, "taskId"), null, ns(ctx)));
  }

  /** The path's id as the namespace's producers write it (the command goes to its topic). */
  private static String local(Context ctx, String param) {
    return Namespace.localId(ApiServer.storedId(ctx, ctx.pathParam(param)));
  }

  private static Namespace ns(Context ctx) {
    return ApiServer.namespace(ctx);
  }

  private void send(Context ctx, TaskCommands.Target target) throws InterruptedException {
    JsonBody body = JsonBody.of(ctx, FIELDS);
    ObjectNode fields = AxJson.MAPPER.createObjectNode();
    Boolean interrupt = body.flag("interrupt");
    if (interrupt != null) {
      if (!target.type().equals("CANCEL") && !target.type().equals("DELETE")) {
        throw ApiException.badRequest("interrupt is for cancel and delete only");
      }
      if (interrupt) {
        fields.put("interrupt", true);
      }
    }
    sendChecked(ctx, body, fields, target);
  }

  private void sendChecked(
      Context ctx, JsonBody body, ObjectNode fields, TaskCommands.Target target)
      throws InterruptedException {
    String reason = body.reason();
    String commandId = body.text("commandId");
    String problem = TaskCommands.problem(commandId, reason);
    if (problem != null) {
      throw ApiException.badRequest(problem);
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
}
