package dev.ax.common.model;

import static dev.ax.common.model.DeadLetterState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DeadLetterStateTest {

  @Test
  void anOpenLetterIsReplayedOrDiscarded() {
    assertThat(OPEN.allowedMoves()).containsExactlyInAnyOrder(REPLAYED, DISCARDED);
  }

  @Test
  void aReplayedLetterReopensOnlyWhenItsInstanceDiesAgain() {
    assertThat(REPLAYED.allowedMoves()).containsExactly(OPEN);
    assertThat(REPLAYED.canMoveTo(DISCARDED)).isFalse();
  }

  @Test
  void discardedIsFinalAndNothingMovesToItself() {
    assertThat(DISCARDED.allowedMoves()).isEmpty();
    for (DeadLetterState state : DeadLetterState.values()) {
      assertThat(state.canMoveTo(state)).as("%s", state).isFalse();
    }
  }

  @Test
  void requireNamesTheIllegalMove() {
    assertThatThrownBy(() -> DeadLetterState.require(DISCARDED, OPEN))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("DISCARDED -> OPEN");
    DeadLetterState.require(OPEN, REPLAYED); // allowed: no exception
  }
}
