package dev.ax.common.testing;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AuditLog;
import java.util.List;
import javax.sql.DataSource;

/**
 * The statuses an instance went through, in order, as its audit log records them: what a test
 * asserts an instance's path on. Stateless and thread-safe.
 */
public final class StatusPath {

  /** Created, fired, claimed and run once, and succeeded: the path of a run nothing disturbed. */
  public static final List<InstanceStatus> RAN_ONCE_AND_SUCCEEDED =
      List.of(
          InstanceStatus.SCHEDULED,
          InstanceStatus.DISPATCHED,
          InstanceStatus.RUNNING,
          InstanceStatus.SUCCESS);

  private StatusPath() {}

  /** The statuses {@code instanceId} moved to, oldest first, read from its audit log. */
  public static List<InstanceStatus> of(DataSource dataSource, String instanceId) {
    return of(new AuditLog(dataSource).history(instanceId));
  }

  /** The status each transition of {@code history} moved to, in its order. */
  public static List<InstanceStatus> of(List<AuditLog.Transition> history) {
    return history.stream().map(AuditLog.Transition::to).toList();
  }
}
