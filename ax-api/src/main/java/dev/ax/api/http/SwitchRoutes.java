package dev.ax.api.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.write.SwitchBoard;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.Namespace;
import io.javalin.http.Context;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The emergency switches in the API: {@code GET /api/v1/switches} (each with its value, version,
 * who set it when, and the stages that applied it or are behind) and {@code POST
 * /api/v1/switches/{name}} with {@code {"value": "on"|"off", "reason": ...}}, as {@code ax switch}
 * shows and flips them. A token scoped to some namespaces sets only their own switches ({@code
 * intake.<namespace>}, {@code dispatch.<namespace>~<group>}). Thread-safe.
 */
final class SwitchRoutes {

  private final SwitchBoard board;

  SwitchRoutes(SwitchBoard board) {
    this.board = board;
  }

  void list(Context ctx) {
    Caller caller = ApiServer.caller(ctx);
    // A scoped token sees the AX-wide switches and its own namespaces', not another tenant's.
    List<SwitchBoard.SwitchView> visible =
        board.view().stream()
            .filter(
                v ->
                    caller.everyNamespace()
                        || SwitchBoard.KNOWN.containsKey(v.name())
                        || caller.mayUse(
                            SwitchBoard.namespaceOf(v.name()).orElse(Namespace.DEFAULT)))
            .toList();
    ObjectNode body = AxJson.MAPPER.createObjectNode();
    body.set("switches", AxJson.MAPPER.valueToTree(visible));
    ApiServer.json(ctx, body);
  }

  void flip(Context ctx) {
    String name = ctx.pathParam("name");
    JsonBody body = JsonBody.of(ctx, Set.of("value", "reason"));
    String value = body.text("value");
    String normalised = value == null ? null : value.toLowerCase(Locale.ROOT);
    String problem = SwitchBoard.problem(name, normalised);
    if (problem != null) {
      throw ApiException.badRequest(problem);
    }
    Caller caller = ApiServer.caller(ctx);
    if (!caller.everyNamespace()
        && SwitchBoard.namespaceOf(name).filter(caller::mayUse).isEmpty()) {
      throw new ApiException(
          403,
          "forbidden",
          caller.name()
              + "'s token is scoped to "
              + caller.namespaces()
              + ": it may set intake.<namespace> and dispatch.<namespace>~<group> of those only");
    }
    boolean changed = board.set(name, normalised, ApiServer.caller(ctx).name(), body.reason());
    ApiServer.json(
        ctx,
        AxJson.MAPPER
            .createObjectNode()
            .put("name", name)
            .put("value", normalised)
            .put("changed", changed));
  }
}
