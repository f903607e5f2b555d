package dev.ax.ingest;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.PacketTransaction;
import dev.ax.common.store.Sql;
import dev.ax.ingest.TaskLifecycleStore.Request;
import dev.ax.ingest.TaskLifecycleStore.Transition;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/** A RUN_NOW's instance ({@link TaskLifecycleStore}). Stateless; in the caller's transaction. */
final class RunNowInstance {

  private RunNowInstance() {}

  /**
   * One extra instance of the task, due now, id {@code taskId@run:<commandId>} (hashed when too
   * long, see {@link InstanceIds#inFlow}): the same command cannot make a second one. It fires like
   * any other, but stands for no slot of the trigger and extends no chain.
   */
  static List<DueInstance> create(
      PacketTransaction tx, Request request, int version, boolean oneShot) throws SQLException {
    String instanceId = InstanceIds.inFlow(request.taskId(), "run:" + request.commandId());
    Map<String, Long> created =
        tx.create(
            List.of(
                new NewInstance(
                    instanceId,
                    request.taskId(),
                    version,
                    request.nowMs(),
                    request.traceId(),
                    Sql.truncate(request.auditReason(Transition.RUN_NOW), 512),
                    null,
                    oneShot)),
            request.actor(),
            request.nowMs());
    Long seq = created.get(instanceId);
    if (seq == null) {
      return List.of(); // created before under this command id
    }
    return List.of(
        new DueInstance(
            instanceId,
            request.taskId(),
            request.nowMs(),
            request.traceId(),
            seq,
            version,
            0,
            0,
            null));
  }
}
