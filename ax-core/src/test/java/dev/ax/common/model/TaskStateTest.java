package dev.ax.common.model;

import static dev.ax.common.model.TaskState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TaskStateTest {

  @Test
  void pauseAndResumeMoveBetweenActiveAndPaused() {
    assertThat(MOVES.isAllowed(ACTIVE, PAUSED)).as("PAUSE").isTrue();
    assertThat(MOVES.isAllowed(PAUSED, ACTIVE)).as("RESUME").isTrue();
    assertThat(MOVES.isAllowed(CANCELLED, PAUSED)).as("a cancelled task is not paused").isFalse();
    assertThat(MOVES.isAllowed(ENDED, PAUSED)).as("PAUSE of an ENDED task is refused").isFalse();
  }

  @Test
  void onlyAnActiveOneShotTaskEndsAndItComesBackActive() {
    assertThat(MOVES.isAllowed(ACTIVE, ENDED)).isTrue();
    assertThat(MOVES.isAllowed(PAUSED, ENDED))
        .as("a paused one-shot task ends only after its RESUME")
        .isFalse();
    assertThat(MOVES.allowedFrom(ENDED)).containsExactlyInAnyOrder(ACTIVE, CANCELLED, DELETED);
  }

  @Test
  void everyStateButDeletedMayBeDeletedAndDeletedIsFinal() {
    for (TaskState state : new TaskState[] {ACTIVE, PAUSED, CANCELLED, ENDED}) {
      assertThat(MOVES.isAllowed(state, DELETED)).as("%s", state).isTrue();
    }
    assertThat(MOVES.allowedFrom(DELETED)).isEmpty();
    assertThat(MOVES.allowedFrom(CANCELLED))
        .as("cancelled comes back by no command")
        .containsExactly(DELETED);
    assertThat(MOVES.allowedFrom(ACTIVE))
        .containsExactlyInAnyOrder(PAUSED, CANCELLED, DELETED, ENDED);
    assertThat(MOVES.allowedFrom(PAUSED)).containsExactlyInAnyOrder(ACTIVE, CANCELLED, DELETED);
  }

  @Test
  void aStateIsNoMoveToItself() {
    for (TaskState state : TaskState.values()) {
      assertThat(MOVES.isAllowed(state, state)).as("%s", state).isFalse();
    }
  }

  @Test
  void theGroupsOfStatesFollowTheTable() {
    assertThat(ACTIVE.isLive()).isTrue();
    assertThat(PAUSED.isLive()).isTrue();
    assertThat(ENDED.isLive()).isFalse();
    assertThat(CANCELLED.isStopped()).isTrue();
    assertThat(DELETED.isStopped()).isTrue();
    assertThat(PAUSED.isStopped()).isFalse();
    assertThat(DELETED.isRemovable()).isTrue();
    assertThat(ENDED.isRemovable()).isTrue();
    assertThat(CANCELLED.isRemovable()).isFalse();
    for (TaskState stopped : new TaskState[] {CANCELLED, DELETED}) {
      assertThat(MOVES.isAllowed(stopped, ACTIVE)).as("%s never comes back", stopped).isFalse();
    }
  }

  @Test
  void requireNamesTheIllegalMove() {
    assertThatThrownBy(() -> TaskState.require(DELETED, ACTIVE))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("DELETED -> ACTIVE");
    TaskState.require(PAUSED, ACTIVE); // allowed: no exception
  }
}
