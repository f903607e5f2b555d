package dev.ax.ticker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.testing.TestRuntime;
import java.util.Collection;

/** What the ticker's ITs check of instances in the database after a run: statuses and audit. */
final class InstanceAssertions {

  private InstanceAssertions() {}

  /** Each instance moved SCHEDULED → DISPATCHED exactly once, by the audit log. */
  static void assertFiredOnce(TestRuntime runtime, Collection<String> ids) {
    AuditLog audit = new AuditLog(runtime.dataSource());
    assertThat(ids)
        .as("fired (SCHEDULED -> DISPATCHED) exactly once")
        .allSatisfy(
            id ->
                assertThat(audit.history(id))
                    .filteredOn(t -> t.from() == InstanceStatus.SCHEDULED)
                    .singleElement()
                    .satisfies(t -> assertThat(t.to()).isEqualTo(InstanceStatus.DISPATCHED)));
  }

  /** Each instance is now in {@code status}. */
  static void assertAllIn(TestRuntime runtime, Collection<String> ids, InstanceStatus status) {
    InstanceStore instances = new InstanceStore(runtime.dataSource());
    assertThat(ids)
        .allSatisfy(id -> assertThat(instances.find(id).orElseThrow().status()).isEqualTo(status));
  }

  /** The instance's last audited move was {@code from} → {@code to}, for a reason naming it. */
  static void assertLastMove(
      TestRuntime runtime, String id, InstanceStatus from, InstanceStatus to, String reasonPart) {
    assertThat(new AuditLog(runtime.dataSource()).history(id))
        .last()
        .satisfies(
            t -> {
              assertThat(t.from()).isEqualTo(from);
              assertThat(t.to()).isEqualTo(to);
              assertThat(t.reason()).contains(reasonPart);
            });
  }
}
