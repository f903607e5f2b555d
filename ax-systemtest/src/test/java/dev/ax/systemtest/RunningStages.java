package dev.ax.systemtest;

import dev.ax.common.config.AxConfig;
import dev.ax.common.testing.TestRuntime;
import dev.ax.deadletter.DeadLetterConfig;
import dev.ax.deadletter.DeadLetterStage;
import dev.ax.dispatcher.DispatcherConfig;
import dev.ax.dispatcher.DispatcherStage;
import dev.ax.ingest.IngestConfig;
import dev.ax.ingest.IngestStage;
import dev.ax.resolver.ResolverConfig;
import dev.ax.resolver.ResolverStage;
import dev.ax.retry.RetryConfig;
import dev.ax.retry.RetryStage;
import dev.ax.ticker.TickerConfig;
import dev.ax.ticker.TickerStage;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The stages of one node that an IT runs in this JVM over a {@link TestRuntime}: each starter
 * starts its stage at once, with a context of the node's id (its own meter registry, as a separate
 * process would have) and its own configuration read from the runtime's, or from the runtime's with
 * the settings given for that stage alone. The order of the starters is the order of the start.
 *
 * <p>{@link #close()} stops the stages last started first, each even if an earlier one failed to
 * stop, and throws the first failure with the others suppressed: what nested try-with-resources
 * would do. If a stage fails to start, the ones already started are stopped before the exception
 * propagates, so a test cannot leak a running stage into the next one.
 *
 * <p>Not thread-safe: started, read and closed by the test's thread.
 */
final class RunningStages implements AutoCloseable {

  private final TestRuntime runtime;
  private final String nodeId;
  private final Deque<Started> started = new ArrayDeque<>();

  /** A running stage and how to stop it (no stage's close throws a checked exception). */
  private record Started(Object stage, Runnable stop) {}

  private RunningStages(TestRuntime runtime, String nodeId) {
    this.runtime = runtime;
    this.nodeId = nodeId;
  }

  /** No stage started yet; the starters add them, as node {@code nodeId}. */
  static RunningStages on(TestRuntime runtime, String nodeId) {
    return new RunningStages(runtime, nodeId);
  }

  RunningStages ingest() {
    return ingest(runtime.config());
  }

  /** Ingest with {@code settings} on top of the runtime's configuration, for this stage only. */
  RunningStages ingest(Map<String, String> settings) {
    return ingest(runtime.config(settings));
  }

  RunningStages ticker() {
    return ticker(Map.of());
  }

  /** The ticker with {@code settings} on top of the runtime's configuration. */
  RunningStages ticker(Map<String, String> settings) {
    TickerConfig config = TickerConfig.from(runtime.config(settings));
    return start(
        () -> new TickerStage(runtime.context(nodeId), config).start(), TickerStage::close);
  }

  RunningStages retry() {
    return start(
        () -> new RetryStage(runtime.context(nodeId), RetryConfig.from(runtime.config())).start(),
        RetryStage::close);
  }

  RunningStages deadLetter() {
    return start(
        () ->
            new DeadLetterStage(runtime.context(nodeId), DeadLetterConfig.from(runtime.config()))
                .start(),
        DeadLetterStage::close);
  }

  /**
   * Retry and dead letter: the stages that give a failed attempt its next try or, out of tries, its
   * dead letter.
   */
  RunningStages retries() {
    return retry().deadLetter();
  }

  RunningStages resolver() {
    return start(
        () ->
            new ResolverStage(runtime.context(nodeId), ResolverConfig.from(runtime.config()))
                .start(),
        ResolverStage::close);
  }

  RunningStages dispatcher() {
    return dispatcher(Map.of());
  }

  /** A dispatcher with {@code settings} on top of the runtime's configuration. */
  RunningStages dispatcher(Map<String, String> settings) {
    DispatcherConfig config = DispatcherConfig.from(runtime.config(settings));
    return start(
        () -> new DispatcherStage(runtime.context(nodeId), config).start(), DispatcherStage::close);
  }

  /** The stage of {@code type} started here (the first, if several were). */
  <S> S get(Class<S> type) {
    return started.stream()
        .map(Started::stage)
        .filter(type::isInstance)
        .map(type::cast)
        .reduce((later, earlier) -> earlier)
        .orElseThrow(() -> new IllegalStateException("no " + type.getSimpleName() + " started"));
  }

  /** Stops the stages, last started first. */
  @Override
  public void close() {
    RuntimeException first = null;
    while (!started.isEmpty()) {
      try {
        started.pop().stop().run();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private RunningStages ingest(AxConfig config) {
    return start(
        () -> new IngestStage(runtime.context(nodeId), IngestConfig.from(config)).start(),
        IngestStage::close);
  }

  private <S> RunningStages start(Supplier<S> starter, Consumer<S> stop) {
    try {
      S stage = starter.get();
      started.push(new Started(stage, () -> stop.accept(stage)));
    } catch (RuntimeException e) {
      try {
        close();
      } catch (RuntimeException stopFailure) {
        e.addSuppressed(stopFailure);
      }
      throw e;
    }
    return this;
  }
}
