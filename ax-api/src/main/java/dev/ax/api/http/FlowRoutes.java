package dev.ax.api.http;

import dev.ax.api.read.FlowView;
import io.javalin.http.Context;
import javax.sql.DataSource;

/**
 * {@code GET /api/v1/flows/{flowRunId}}: a flow run as nodes (each task with its run and status, or
 * what it still waits for) and edges, as {@code ax flow} shows it, in the request's namespace.
 * Thread-safe.
 */
final class FlowRoutes {

  private final FlowView flows;

  FlowRoutes(DataSource dataSource) {
    this.flows = new FlowView(dataSource);
  }

  void run(Context ctx) {
    String flowRunId = ApiServer.storedId(ctx, ctx.pathParam("flowRunId"));
    FlowView.FlowRun run =
        flows.run(flowRunId).orElseThrow(() -> ApiException.notFound("no flow run " + flowRunId));
    ApiServer.json(ctx, FlowView.json(run));
  }
}
