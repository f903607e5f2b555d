package dev.ax.common.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceStatus;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OutcomeRecordingTest {

  private static final Outcome FIRST = new Outcome("a@1", "a", 1, InstanceStatus.SUCCESS, null, 10);
  private static final Outcome TAKEN_BACK =
      new Outcome("b@1", "b", 1, InstanceStatus.FAILED, "boom", 10);
  private static final Outcome RETRIED =
      new Outcome("b@1", "b", 2, InstanceStatus.SUCCESS, null, 11);

  @Test
  void eachOutcomeIsRecordedOrLostInTheOrderGiven() {
    OutcomeRecording recording =
        OutcomeRecording.of(
            List.of(FIRST, TAKEN_BACK, RETRIED),
            Set.of(OutcomeRecording.runOf(FIRST), OutcomeRecording.runOf(RETRIED)));

    assertThat(recording.recorded()).containsExactly(FIRST, RETRIED);
    assertThat(recording.lost()).containsExactly(TAKEN_BACK);
    assertThat(recording.isRecorded(RETRIED)).as("attempt 2 of b won").isTrue();
    assertThat(recording.isRecorded(TAKEN_BACK)).as("attempt 1 of b did not").isFalse();
  }

  @Test
  void nothingGivenIsNothingRecordedOrLost() {
    assertThat(OutcomeRecording.none().recorded()).isEmpty();
    assertThat(OutcomeRecording.none().lost()).isEmpty();
    assertThat(OutcomeRecording.of(List.of(FIRST), Set.of()).lost()).containsExactly(FIRST);
  }
}
