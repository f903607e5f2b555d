package dev.ax.common.model;

import static dev.ax.common.model.TaskState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TaskStateTest {

  @Test
  void pauseAndResumeMoveBetweenActiveAndPaused() {
    assertThat(ACTIVE.canMoveTo(PAUSED)).as("PAUSE").isTrue();
    assertThat(PAUSED.canMoveTo(ACTIVE)).as("RESUME").isTrue();
    assertThat(CANCELLED.canMoveTo(PAUSED)).as("a cancelled task is not paused").isFalse();
    assertThat(ENDED.canMoveTo(PAUSED)).as("PAUSE of an ENDED task is refused").isFalse();
  }

  @Test
  void onlyAnActiveOneShotTaskEndsAndItComesBackActive() {
    assertThat(ACTIVE.canMoveTo(ENDED)).isTrue();
    assertThat(PAUSED.canMoveTo(ENDED))
        .as("a paused one-shot task ends only after its RESUME")
        .isFalse();
    assertThat(ENDED.allowedMoves()).containsExactlyInAnyOrder(ACTIVE, CANCELLED, DELETED);
  }

  @Test
  void everyStateButDeletedMayBeDeletedAndDeletedIsFinal() {
    for (TaskState state : new TaskState[] {ACTIVE, PAUSED, CANCELLED, ENDED}) {
      assertThat(state.canMoveTo(DELETED)).as("%s", state).isTrue();
    }
    assertThat(DELETED.allowedMoves()).isEmpty();
    assertThat(CANCELLED.allowedMoves())
        .as("cancelled comes back by no command")
        .containsExactly(DELETED);
    assertThat(ACTIVE.allowedMoves()).containsExactlyInAnyOrder(PAUSED, CANCELLED, DELETED, ENDED);
    assertThat(PAUSED.allowedMoves()).containsExactlyInAnyOrder(ACTIVE, CANCELLED, DELETED);
  }

  @Test
  void aStateIsNoMoveToItself() {
    for (TaskState state : TaskState.values()) {
      assertThat(state.canMoveTo(state)).as("%s", state).isFalse();
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
      assertThat(stopped.canMoveTo(ACTIVE)).as("%s never comes back", stopped).isFalse();
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
