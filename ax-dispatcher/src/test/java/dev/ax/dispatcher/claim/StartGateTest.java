package dev.ax.dispatcher.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.dispatcher.store.ClaimedInstance;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StartGateTest {

  private static final Duration DEADLINE = Duration.ofSeconds(10);

  private final FakeDispatcherPort port = new FakeDispatcherPort();
  private final StartGate gate = new StartGate(port);

  private static List<ClaimedInstance> won(String instanceId) {
    return List.of(
        new ClaimedInstance(instanceId, "task", 1, 1, 1000, 1000, "trace", 0, 0, null, 0));
  }

  private void pass(String instanceId) {
    gate.pass(won(instanceId), Map.of(instanceId, "p"), CompletableFuture.completedFuture(null));
  }

  @Test
  void wonClaimsPassToThePools() {
    port.setRoom("p", 2);

    pass("a");

    assertThat(port.startedIds()).containsExactly("a");
  }

  @Test
  void nothingPassesOnceClosed() {
    port.setRoom("p", 2);
    gate.close();

    pass("a");

    assertThat(port.startedIds()).isEmpty();
  }

  @Test
  void aStartThatThrowsIsNotThrownAndTheNextStillPasses() {
    port.setRoom("p", 2);
    port.onStart =
        () -> {
          port.onStart = () -> {};
          throw new IllegalStateException("pool shut");
        };

    pass("a");
    pass("b");

    assertThat(port.startedIds()).containsExactly("b");
  }

  @Test
  void closeWaitsForAHandOverUnderWaySoNoneBeginsAfterItReturns() throws Exception {
    port.setRoom("p", 2);
    CountDownLatch inStart = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    port.holdStarts(inStart, release);
    Thread claimThread = new Thread(() -> pass("a"), "claim");
    claimThread.start();
    assertThat(inStart.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();

    Thread stopper = new Thread(gate::close, "stopper");
    stopper.start();
    await().atMost(DEADLINE).until(() -> stopper.getState() == Thread.State.BLOCKED);
    release.countDown();
    stopper.join(DEADLINE.toMillis());
    claimThread.join(DEADLINE.toMillis());

    assertThat(port.startedIds()).as("the hand-over under way completed").containsExactly("a");
    port.onStart = () -> {};
    pass("b");
    assertThat(port.startedIds()).as("none after close returned").containsExactly("a");
  }
}
