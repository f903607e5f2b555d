package dev.ax.common.model;

import static dev.ax.common.model.DeadLetterState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DeadLetterStateTest {

  @Test
  void anOpenLetterIsReplayedOrDiscarded() {
    assertThat(MOVES.allowedFrom(OPEN)).containsExactlyInAnyOrder(REPLAYED, DISCARDED);
  }

  @Test
  void aReplayedLetterReopensOnlyWhenItsInstanceDiesAgain() {
    assertThat(MOVES.allowedFrom(REPLAYED)).containsExactly(OPEN);
    assertThat(MOVES.isAllowed(REPLAYED, DISCARDED)).isFalse();
  }

  @Test
  void discardedIsFinalAndNothingMovesToItself() {
    assertThat(MOVES.allowedFrom(DISCARDED)).isEmpty();
    for (DeadLetterState state : DeadLetterState.values()) {
      assertThat(MOVES.isAllowed(state, state)).as("%s", state).isFalse();
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
