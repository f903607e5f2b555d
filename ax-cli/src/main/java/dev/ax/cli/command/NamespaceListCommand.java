package dev.ax.cli.command;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ax.cli.text.Columns;
import dev.ax.common.contract.AxJson;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import dev.ax.common.store.NamespaceStore;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ax namespace list}: every namespace, the default one first, with its topics. */
@Command(name = "list", description = "List the namespaces and their topics.")
final class NamespaceListCommand extends DatabaseSubcommand {

  private static final Columns<NamespaceStore.Row> COLUMNS =
      Columns.<NamespaceStore.Row>builder()
          .left("namespace", row -> row.namespace().name())
          .left("created by", NamespaceStore.Row::createdBy)
          .left(
              "at",
              row ->
                  row.createdAtMs() == 0 ? "" : Instant.ofEpochMilli(row.createdAtMs()).toString())
          .build();

  @Option(names = "--json", description = "The namespaces as a JSON array.")
  private boolean json;

  @Override
  int run(CliDatabase db, PrintWriter out) {
    List<NamespaceStore.Row> rows = new ArrayList<>();
    rows.add(new NamespaceStore.Row(Namespace.DEFAULT, "(always there)", 0));
    rows.addAll(new NamespaceStore(db.dataSource).all());
    Topics topics = new Topics(db.config.topicPrefix());
    if (json) {
      ArrayNode array = AxJson.MAPPER.createArrayNode();
      for (NamespaceStore.Row row : rows) {
        var node = array.addObject().put("name", row.namespace().name());
        node.put("commandsTopic", topics.commands(row.namespace()));
        node.put("completedTopic", topics.completed(row.namespace()));
        node.put("rejectedTopic", topics.commandsRejected(row.namespace()));
        if (row.createdAtMs() > 0) {
          node.put("createdBy", row.createdBy()).put("createdAtMs", row.createdAtMs());
        }
      }
      out.println(array.toPrettyString());
      return ExitCodes.OK;
    }
    COLUMNS.table(rows).print(out, "");
    return ExitCodes.OK;
  }
}
