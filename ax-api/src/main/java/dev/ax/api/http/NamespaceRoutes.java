package dev.ax.api.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import dev.ax.common.store.NamespaceStore;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * {@code GET /api/v1/namespaces}: the namespaces the caller's token reaches (the default one first,
 * if it does), each with its topics, as {@code ax namespace list} shows them. Thread-safe.
 */
final class NamespaceRoutes {

  private final NamespaceStore store;
  private final Topics topics;

  NamespaceRoutes(DataSource dataSource, Topics topics) {
    this.store = new NamespaceStore(dataSource);
    this.topics = topics;
  }

  void list(Context ctx) {
    Caller caller = ApiServer.caller(ctx);
    List<NamespaceStore.Row> rows = new ArrayList<>();
    rows.add(new NamespaceStore.Row(Namespace.DEFAULT, null, 0));
    rows.addAll(store.all());
    ArrayNode namespaces = AxJson.MAPPER.createArrayNode();
    for (NamespaceStore.Row row : rows) {
      if (!caller.mayUse(row.namespace())) {
        continue;
      }
      ObjectNode node =
          namespaces
              .addObject()
              .put("name", row.namespace().name())
              .put("commandsTopic", topics.commands(row.namespace()))
              .put("completedTopic", topics.completed(row.namespace()))
              .put("rejectedTopic", topics.commandsRejected(row.namespace()));
      if (row.createdBy() != null) {
        node.put("createdBy", row.createdBy()).put("createdAtMs", row.createdAtMs());
      }
    }
    ObjectNode body = AxJson.MAPPER.createObjectNode();
    body.set("namespaces", namespaces);
    ApiServer.json(ctx, body);
  }
}
