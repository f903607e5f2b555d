package dev.ax.ticker.leader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ticker.TickerConfig;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the reaper asks before it takes back an expired run lease: whether the database has answered
 * this node's heartbeats for long enough since its last outage. Heartbeats are stepped by hand on a
 * fake monotonic clock, against the real database behind a switch.
 */
@ExtendWith(AxInfraExtension.class)
class LeaderElectorOutageIT {

  private static final Duration STEADY = Duration.ofSeconds(30);

  @Test
  void theDatabaseIsSteadyOnlyOnceItAnsweredForTheWholeTimeAfterAnOutage(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      AtomicBoolean away = new AtomicBoolean();
      AtomicLong nanos = new AtomicLong(1_000_000_000L);
      LeaderElector elector =
          new LeaderElector(
              new LeaseStore(switchable(runtime.dataSource(), away)),
              LeaseFence.TICKER + "-outage-test",
              "node-1",
              TickerConfig.from(runtime.config()),
              nanos::get);

      elector.step();
      assertThat(elector.databaseSteadyFor(STEADY)).as("no outage seen").isTrue();

      away.set(true);
      elector.step();
      assertThat(elector.databaseSteadyFor(STEADY)).as("during the outage").isFalse();

      nanos.addAndGet(Duration.ofMinutes(2).toNanos());
      away.set(false);
      elector.step();
      assertThat(elector.databaseSteadyFor(STEADY)).as("just back").isFalse();
      nanos.addAndGet(STEADY.minusMillis(1).toNanos());
      assertThat(elector.databaseSteadyFor(STEADY)).isFalse();
      nanos.addAndGet(Duration.ofMillis(1).toNanos());
      assertThat(elector.databaseSteadyFor(STEADY)).as("answered for the whole time").isTrue();
    }
  }

  /** {@code target}, whose connections are refused while {@code away} holds. */
  private static DataSource switchable(DataSource target, AtomicBoolean away) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection") && away.get()) {
                throw new SQLException("the database is away (test)");
              }
              try {
                return method.invoke(target, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
