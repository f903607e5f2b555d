package dev.ax.common.thread;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DaemonThreadsTest {

  @Test
  void aThreadIsADaemonWithItsNameAndIsNotStarted() {
    Thread thread = DaemonThreads.thread("ax-test-one", () -> {});
    assertThat(thread.isDaemon()).isTrue();
    assertThat(thread.getName()).isEqualTo("ax-test-one");
    assertThat(thread.getState()).isEqualTo(Thread.State.NEW);
  }

  @Test
  void aNamedFactoryGivesEveryThreadTheSameName() {
    ThreadFactory factory = DaemonThreads.named("ax-test-named");
    assertThat(factory.newThread(() -> {}).getName()).isEqualTo("ax-test-named");
    assertThat(factory.newThread(() -> {}).getName()).isEqualTo("ax-test-named");
  }

  @Test
  void aNumberedFactoryCountsFromOnePerFactory() {
    ThreadFactory first = DaemonThreads.numbered("ax-test-pool");
    ThreadFactory second = DaemonThreads.numbered("ax-test-pool");
    assertThat(first.newThread(() -> {}).getName()).isEqualTo("ax-test-pool-1");
    assertThat(first.newThread(() -> {}).getName()).isEqualTo("ax-test-pool-2");
    assertThat(second.newThread(() -> {}).getName()).isEqualTo("ax-test-pool-1");
    assertThat(first.newThread(() -> {}).isDaemon()).isTrue();
  }

  @Test
  void aSchedulerRunsOnItsNamedDaemonThread() throws Exception {
    ScheduledExecutorService scheduler = DaemonThreads.scheduler("ax-test-sched");
    try {
      Thread ran =
          scheduler
              .schedule(Thread::currentThread, 0, TimeUnit.MILLISECONDS)
              .get(10, TimeUnit.SECONDS);
      assertThat(ran.getName()).isEqualTo("ax-test-sched");
      assertThat(ran.isDaemon()).isTrue();
    } finally {
      scheduler.shutdownNow();
    }
  }
}
