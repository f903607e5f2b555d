package dev.ax.api.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.read.FlowView;
import dev.ax.common.contract.AxJson;
import io.javalin.http.Context;
import javax.sql.DataSource;

/**
 * {@code GET /api/v1/flows/{flowRunId}}: a flow run as nodes (each task with its run and status, or
 * what it still waits for) and edges, as {@code ax flow} shows it. Thread-safe.
 */
final class FlowRoutes {

  private final FlowView flows;

  FlowRoutes(DataSource dataSource) {
    this.flows = new FlowView(dataSource);
  }

  void run(Context ctx) {
    String flowRunId = ctx.pathParam("flowRunId");
    FlowView.FlowRun run =
        flows.run(flowRunId).orElseThrow(() -> ApiException.notFound("no flow run " + flowRunId));
    ObjectNode body = AxJson.MAPPER.createObjectNode();
    body.put("flowRunId", run.flowRunId());
    body.set("nodes", AxJson.MAPPER.valueToTree(run.nodes()));
    body.set("edges", AxJson.MAPPER.valueToTree(run.edges()));
    body.set("instances", AxJson.MAPPER.valueToTree(run.instances()));
    ApiServer.json(ctx, body);
  }
}
