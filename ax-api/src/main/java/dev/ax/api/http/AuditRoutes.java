package dev.ax.api.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.common.contract.AxJson;
import io.javalin.http.Context;
import java.time.Instant;

/**
 * {@code GET /api/v1/audit}: what operators did through the CLI and the API ({@code
 * ax_operator_log}), newest first, as {@code ax audit} lists it: AX-wide, so for tokens of every
 * namespace only. Thread-safe.
 */
final class AuditRoutes {

  private final OperatorLog log;

  AuditRoutes(OperatorLog log) {
    this.log = log;
  }

  void list(Context ctx) {
    ApiServer.requireEveryNamespace(ctx, "the audit of every operator's actions");
    String actor = QueryParams.text(ctx, "actor");
    int limit = QueryParams.integer(ctx, "limit", 50, 1, TaskRoutes.MAX_LIMIT);
    ArrayNode entries = AxJson.MAPPER.createArrayNode();
    for (OperatorLog.Entry entry : log.newest(actor, limit)) {
      ObjectNode row = AxJson.MAPPER.valueToTree(entry);
      row.put("at", Instant.ofEpochMilli(entry.atMs()).toString());
      entries.add(row);
    }
    ObjectNode body = AxJson.MAPPER.createObjectNode();
    body.set("entries", entries);
    ApiServer.json(ctx, body);
  }
}
