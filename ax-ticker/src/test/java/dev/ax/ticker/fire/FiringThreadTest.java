package dev.ax.ticker.fire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.time.SettableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The firing thread over a real tick loop and an in-memory port, with a settable lease. */
class FiringThreadTest {

  private static final Duration DEADLINE = Duration.ofSeconds(10);

  private final AtomicReference<Optional<LeaseFence>> fence =
      new AtomicReference<>(Optional.empty());
  private final TickLoop loop =
      new TickLoop(
          new SettableClock(Instant.parse("2026-03-01T10:00:00Z")),
          fence::get,
          new InMemoryTickerPort(),
          new FirePlanner(new FireTimes(), Duration.ofSeconds(5)),
          new TickLimits(10, 8, 10_000, 1000, 60_000),
          new SimpleMeterRegistry());
  private final AtomicInteger newLeads = new AtomicInteger();
  private FiringThread firing;

  @AfterEach
  void stop() {
    if (firing != null) {
      firing.close();
    }
  }

  private static Optional<LeaseFence> leading(long epoch) {
    return Optional.of(new LeaseFence("ticker", "n1", epoch));
  }

  @Test
  void eachEpochTheLoopComesToLeadAtIsReportedOnce() {
    firing = new FiringThread(loop, newLeads::incrementAndGet);
    firing.start();

    fence.set(leading(3));
    await().atMost(DEADLINE).until(() -> newLeads.get() == 1);
    fence.set(Optional.empty());
    // The loop sees the lapse on a later step than the one that reported epoch 3.
    await().atMost(DEADLINE).until(() -> loop.ledEpoch() == -1);
    assertThat(newLeads).as("epoch 3 reported once, however many steps it led").hasValue(1);

    fence.set(leading(4));
    await().atMost(DEADLINE).until(() -> newLeads.get() == 2);
    fence.set(Optional.empty());
    await().atMost(DEADLINE).until(() -> loop.ledEpoch() == -1);
    assertThat(newLeads).as("standing by is no new lead; epoch 4 is").hasValue(2);
  }

  @Test
  void anErrorInTheNewLeadHandOverIsLoggedAndTheLoopGoesOn() {
    firing =
        new FiringThread(
            loop,
            () -> {
              if (newLeads.incrementAndGet() == 1) {
                throw new IllegalStateException("scheduler shut");
              }
            });
    firing.start();

    fence.set(leading(3));
    await().atMost(DEADLINE).until(() -> newLeads.get() == 1);
    fence.set(leading(4));

    await().atMost(DEADLINE).until(() -> newLeads.get() == 2);
    assertThat(loop.ledEpoch()).isEqualTo(4);
  }

  @Test
  void closeEndsTheThread() {
    firing = new FiringThread(loop, newLeads::incrementAndGet);
    firing.start();
    await().atMost(DEADLINE).until(() -> threadNamed("ax-ticker-fire").isPresent());

    firing.close();

    assertThat(threadNamed("ax-ticker-fire")).as("ended within the stop wait").isEmpty();
  }

  private static Optional<Thread> threadNamed(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals(name) && t.isAlive())
        .findAny();
  }
}
