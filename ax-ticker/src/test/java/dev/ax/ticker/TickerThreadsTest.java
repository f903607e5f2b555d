package dev.ax.ticker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The ticker's two scheduler threads: chores never hold the window load up. */
class TickerThreadsTest {

  private static final Duration DEADLINE = Duration.ofSeconds(10);
  private static final Duration EVERY = Duration.ofMillis(5);

  private final TickerThreads threads = new TickerThreads();
  private final CountDownLatch never = new CountDownLatch(1);

  @AfterEach
  void stop() {
    never.countDown();
    threads.close();
  }

  @Test
  void aChoreBlockedForeverDoesNotStopTheWindowLoad() {
    CountDownLatch choreBlocked = new CountDownLatch(1);
    threads.choreEvery(
        "stuck",
        () -> {
          choreBlocked.countDown();
          awaitOrInterrupted(never);
        },
        Duration.ZERO,
        EVERY);
    await().atMost(DEADLINE).until(() -> choreBlocked.getCount() == 0);
    AtomicInteger loads = new AtomicInteger();
    AtomicReference<String> loadThread = new AtomicReference<>();
    threads.loadEvery(
        () -> {
          loadThread.set(Thread.currentThread().getName());
          loads.incrementAndGet();
        },
        EVERY);
    threads.loadNow(loads::incrementAndGet);
    await().atMost(DEADLINE).until(() -> loads.get() >= 10);
    assertThat(loadThread.get()).isEqualTo(TickerThreads.LOAD_THREAD);
  }

  @Test
  void aSlowWindowLoadDoesNotStopTheChores() {
    threads.loadEvery(() -> awaitOrInterrupted(never), EVERY);
    AtomicInteger passes = new AtomicInteger();
    AtomicReference<String> choreThread = new AtomicReference<>();
    threads.choreEvery(
        "counting",
        () -> {
          choreThread.set(Thread.currentThread().getName());
          passes.incrementAndGet();
        },
        Duration.ZERO,
        EVERY);
    await().atMost(DEADLINE).until(() -> passes.get() >= 10);
    assertThat(choreThread.get()).isEqualTo(TickerThreads.CHORES_THREAD);
  }

  @Test
  void aChoreThatThrowsRunsAgainAtItsNextInterval() {
    AtomicInteger runs = new AtomicInteger();
    threads.choreEvery(
        "failing",
        () -> {
          runs.incrementAndGet();
          throw new IllegalStateException("database away");
        },
        Duration.ZERO,
        Duration.ofMillis(50));
    await().atMost(DEADLINE).until(() -> runs.get() >= 3);
  }

  @Test
  void closeLetsARunningChoreFinishAndThenStopsScheduling() throws InterruptedException {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger finished = new AtomicInteger();
    AtomicInteger interrupted = new AtomicInteger();
    AtomicInteger runs = new AtomicInteger();
    threads.choreEvery(
        "slow",
        () -> {
          runs.incrementAndGet();
          started.countDown();
          awaitOrInterrupted(release);
          if (Thread.currentThread().isInterrupted()) {
            interrupted.incrementAndGet();
          }
          finished.incrementAndGet();
        },
        Duration.ZERO,
        EVERY);
    started.await();
    Thread closer = new Thread(threads::close);
    closer.start();
    release.countDown();
    closer.join(DEADLINE.toMillis());
    assertThat(closer.isAlive()).isFalse();
    assertThat(finished.get()).isEqualTo(runs.get()); // every run ended
    assertThat(interrupted.get()).isZero(); // within the grace: none was interrupted
    int after = runs.get();
    assertThat(threads.choreNow("late", runs::incrementAndGet)).isFalse(); // refused once closed
    assertThat(runs.get()).isEqualTo(after);
  }

  private static void awaitOrInterrupted(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
