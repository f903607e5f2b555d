package dev.ax.systemtest;

import static org.awaitility.Awaitility.await;

import dev.ax.deadletter.DeadLetterStore;
import java.time.Duration;

/** Waits for the dead letters a test expects the dead-letter stage to store. */
final class DeadLetters {

  private DeadLetters() {}

  /** The newest dead letter of {@code taskId} once there is one, waiting up to {@code atMost}. */
  static DeadLetterStore.DeadLetter awaitNewest(
      DeadLetterStore letters, String taskId, Duration atMost) {
    DeadLetterStore.Filter ofTask = new DeadLetterStore.Filter(taskId, null, null, null, null);
    return await()
        .atMost(atMost)
        .until(() -> letters.list(ofTask, 1), found -> !found.isEmpty())
        .get(0);
  }
}
