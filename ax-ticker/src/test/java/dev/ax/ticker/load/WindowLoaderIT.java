package dev.ax.ticker.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ticker.fire.FirePlanner;
import dev.ax.ticker.fire.FiringStore;
import dev.ax.ticker.fire.InMemoryTickerPort;
import dev.ax.ticker.fire.TickLimits;
import dev.ax.ticker.fire.TickLoop;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The window loader against the real database, driven step by step (no threads). */
@ExtendWith(AxInfraExtension.class)
class WindowLoaderIT {

  @Test
  void offersNothingUntilTheLoopLeadsAtTheCurrentEpochThenPrefetchesTheSpecsOfWhatItOffers(
      AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env, Map.of())) {
      long nowMs = runtime.clock().millis();
      List<NewTask> overdue = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        overdue.add(
            new NewTask(
                TestTasks.onceNoop("overdue-" + i), "trace-" + i, nowMs - 3_000 + i * 1_000L));
      }
      new TaskStore(runtime.dataSource()).create(overdue, "test", nowMs);
      Optional<LeaseFence> leading = Optional.of(new LeaseFence(LeaseFence.TICKER, "n1", 7));
      List<String> prefetched = new ArrayList<>();
      TickLoop loop = loop(runtime, leading);
      WindowLoader loader = loader(runtime, leading, loop, prefetched::addAll);

      // The lease is held but the loop has not taken up epoch 7: taking it up clears the
      // hand-off, so anything offered now could be lost from the middle of a load.
      loader.load();
      assertThat(loop.handOffSize()).as("offered before the loop leads").isZero();
      assertThat(prefetched).isEmpty();
      assertThat(loop.meters().get("ax.ticker.window.load").timer().count())
          .as("a load that does not run is not timed")
          .isZero();

      loop.step();
      assertThat(loop.ledEpoch()).isEqualTo(7);
      loader.load();
      assertThat(loop.handOffSize()).as("offered once the loop leads at epoch 7").isEqualTo(3);
      assertThat(prefetched)
          .as("the specs firing will need, read off the firing thread")
          .containsExactlyInAnyOrder("overdue-0", "overdue-1", "overdue-2");
      assertThat(loop.meters().get("ax.ticker.window.load").timer().count())
          .as("the load that ran, timed")
          .isEqualTo(1);
    }
  }

  @Test
  void aRequestedFullReloadReadsWhatWasCreatedBehindTheWatermark(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env, Map.of())) {
      long nowMs = runtime.clock().millis();
      TaskStore tasks = new TaskStore(runtime.dataSource());
      tasks.create(
          List.of(new NewTask(TestTasks.onceNoop("later"), "trace-l", nowMs + 5_000)),
          "test",
          nowMs);
      Optional<LeaseFence> leading = Optional.of(new LeaseFence(LeaseFence.TICKER, "n1", 7));
      TickLoop loop = loop(runtime, leading);
      WindowLoader loader = loader(runtime, leading, loop, ids -> {});
      loop.step();
      loader.load(); // the first load is a full one: "later" is offered, the watermark passes it
      loop.step();
      assertThat(loop.handOffSize()).isZero();

      // Created due before the watermark and never announced to this node (as while its
      // announcement reader had no positions yet): an incremental load does not see it.
      tasks.create(
          List.of(new NewTask(TestTasks.onceNoop("earlier"), "trace-e", nowMs + 2_000)),
          "test",
          nowMs);
      loader.load();
      assertThat(loop.handOffSize()).as("behind the watermark").isZero();

      loop.requestFullReload();
      loader.load();
      assertThat(loop.handOffSize()).as("both, read again from the start").isEqualTo(2);
    }
  }

  private static TickLoop loop(TestRuntime runtime, Optional<LeaseFence> leading) {
    return new TickLoop(
        runtime.clock(),
        () -> leading,
        new InMemoryTickerPort(),
        new FirePlanner(new FireTimes(), Duration.ofSeconds(5)),
        new TickLimits(10, 512, 10_000, 1_000, 60_000),
        new SimpleMeterRegistry());
  }

  /** A loader with no periodic full reload (every 100 loads): only the ones asked for. */
  private static WindowLoader loader(
      TestRuntime runtime,
      Optional<LeaseFence> leading,
      TickLoop loop,
      Consumer<Collection<String>> prefetch) {
    return new WindowLoader(
        new FiringStore(runtime.dataSource()), runtime.clock(), () -> leading, loop, 100, prefetch);
  }
}
