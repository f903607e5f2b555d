package dev.ax.common.model;

import static dev.ax.common.model.InstanceStatus.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StatusTransitionsTest {

  @Test
  void theHappyPathIsAllowed() {
    assertThat(StatusTransitions.isAllowed(SCHEDULED, DISPATCHED)).isTrue();
    assertThat(StatusTransitions.isAllowed(DISPATCHED, RUNNING)).isTrue();
    assertThat(StatusTransitions.isAllowed(RUNNING, SUCCESS)).isTrue();
  }

  @Test
  void failuresGoToRetryOrDeadAndRetriesComeBackDispatched() {
    assertThat(StatusTransitions.allowedFrom(FAILED)).containsExactlyInAnyOrder(RETRYING, DEAD);
    assertThat(StatusTransitions.allowedFrom(TIMEOUT)).containsExactlyInAnyOrder(RETRYING, DEAD);
    assertThat(StatusTransitions.allowedFrom(RETRYING))
        .containsExactlyInAnyOrder(DISPATCHED, DEAD, CANCELLED, PAUSED);
    assertThat(StatusTransitions.isAllowed(RUNNING, DISPATCHED)).as("reaper").isTrue();
  }

  @Test
  void aPausedTaskHoldsItsPendingInstancesUntilResumedOrCancelled() {
    assertThat(StatusTransitions.isAllowed(SCHEDULED, PAUSED)).isTrue();
    assertThat(StatusTransitions.isAllowed(DISPATCHED, PAUSED)).isTrue();
    assertThat(StatusTransitions.isAllowed(DISPATCHED, SCHEDULED)).as("requeue").isTrue();
    assertThat(StatusTransitions.isAllowed(RUNNING, PAUSED))
        .as("the reaper takes back the expired run of a paused task")
        .isTrue();
    assertThat(StatusTransitions.isAllowed(RUNNING, CANCELLED)).as("CANCEL interrupt").isTrue();
    assertThat(StatusTransitions.allowedFrom(PAUSED))
        .containsExactlyInAnyOrder(SCHEDULED, CANCELLED, SKIPPED);
    assertThat(PAUSED.isTerminal()).isFalse();
  }

  @Test
  void nothingSkipsAStepOrLeavesATerminalStatus() {
    assertThat(StatusTransitions.isAllowed(SCHEDULED, RUNNING)).isFalse();
    assertThat(StatusTransitions.isAllowed(DISPATCHED, SUCCESS)).isFalse();
    for (InstanceStatus terminal : new InstanceStatus[] {SUCCESS, DEAD, CANCELLED, SKIPPED}) {
      assertThat(terminal.isTerminal()).as("%s", terminal).isTrue();
    }
    for (InstanceStatus terminal : new InstanceStatus[] {SUCCESS, CANCELLED, SKIPPED}) {
      assertThat(StatusTransitions.allowedFrom(terminal)).isEmpty();
    }
    assertThat(StatusTransitions.allowedFrom(DEAD))
        .as("only an operator's replay of the dead letter (held PAUSED if its task is paused)")
        .containsExactlyInAnyOrder(DISPATCHED, PAUSED);
    assertThat(RUNNING.isTerminal()).isFalse();
  }

  @Test
  void requireNamesTheIllegalMove() {
    assertThatThrownBy(() -> StatusTransitions.require(SUCCESS, RUNNING))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("SUCCESS -> RUNNING");
  }
}
