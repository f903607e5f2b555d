package dev.ax.common.store;

import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.RUNNING;
import static dev.ax.common.model.InstanceStatus.SCHEDULED;
import static dev.ax.common.model.InstanceStatus.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class BatchMoveTest {

  @Test
  void aMoveComposesItsAssignmentsAndConditionsInOrder() {
    LeaseFence fence = new LeaseFence(LeaseFence.TICKER, "ticker-1", 3);
    BatchMove<DueInstance> move =
        BatchMove.from(DISPATCHED)
            .<DueInstance>to(DISPATCHED)
            .set("epoch = ?", 3L)
            .set("dispatched_at_ms = ?", 1000L)
            .where("claimed_at_ms < ?", 900L)
            .where("taken_back < ?", 3)
            .fencedBy(fence)
            .readBack(DueInstance.COLUMNS, DueInstance::read)
            .audit("ticker-1", "emitted again");

    assertThat(move.setClause).isEqualTo("epoch = ?, dispatched_at_ms = ?");
    assertThat(move.setValues).containsExactly(3L, 1000L);
    assertThat(move.extraWhere).isEqualTo(" AND claimed_at_ms < ? AND taken_back < ?");
    assertThat(move.extraWhereValues).containsExactly(900L, 3);
    assertThat(move.fence).isEqualTo(fence);
    assertThat(move.actor).isEqualTo("ticker-1");
    assertThat(move.reason()).isEqualTo("emitted again");
  }

  @Test
  void aMoveWithoutConditionsOrFenceHasNone() {
    BatchMove<DueInstance> move =
        BatchMove.from(SCHEDULED)
            .<DueInstance>to(DISPATCHED)
            .set("dispatched_at_ms = ?", 1L)
            .readBack(DueInstance.COLUMNS, DueInstance::read)
            .audit("ticker-1", "due");

    assertThat(move.extraWhere).isEmpty();
    assertThat(move.extraWhereValues).isEqualTo(List.of());
    assertThat(move.fence).isNull();
  }

  @Test
  void anIllegalTransitionIsRefusedAtOnce() {
    assertThatThrownBy(() -> BatchMove.from(SUCCESS).to(RUNNING))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aMoveMustReadItsRowsBackAndSetSomething() {
    assertThatThrownBy(
            () ->
                BatchMove.from(SCHEDULED)
                    .<DueInstance>to(DISPATCHED)
                    .set("x = ?", 1)
                    .audit("a", "r"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("readBack");
    assertThatThrownBy(
            () ->
                BatchMove.from(SCHEDULED)
                    .<DueInstance>to(DISPATCHED)
                    .readBack(DueInstance.COLUMNS, DueInstance::read)
                    .audit("a", "r"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("sets at least one");
  }
}
