package dev.ax.common.thread;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

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

  @Test
  void aThreadThatDiesOfAnUncaughtExceptionSaysSoInTheLogWithItsName() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(DaemonThreads.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try {
      Thread thread =
          DaemonThreads.thread(
              "ax-test-dies",
              () -> {
                throw new IllegalStateException("boom");
              });
      thread.start();
      thread.join(10_000);
      assertThat(thread.isAlive()).isFalse();
      assertThat(logged.list)
          .singleElement()
          .satisfies(
              event -> {
                assertThat(event.getFormattedMessage())
                    .contains("ax-test-dies")
                    .contains("IllegalStateException: boom");
                assertThat(event.getLevel().toString()).isEqualTo("ERROR");
              });
    } finally {
      logger.detachAppender(logged);
    }
  }
}
