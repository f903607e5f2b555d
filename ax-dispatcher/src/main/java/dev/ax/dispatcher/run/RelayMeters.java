package dev.ax.dispatcher.run;

import dev.ax.common.store.OutboxMessage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The {@link OutboxRelay}'s meters: events re-sent from the outbox ({@code ax.outbox.resent}) and
 * sends the broker did not take, in all ({@code ax.outbox.send.failed}, registered at start so that
 * it is always scraped) and by topic and error class ({@code ax.outbox.send.failed.by.error}, a
 * series per pair as they happen).
 *
 * <p>Thread-safety: thread-safe (Micrometer meters); failures are counted on producer threads.
 */
record RelayMeters(MeterRegistry registry, Counter resent, Counter sendsFailed) {

  /** Registers the relay's totals in {@code registry}. */
  static RelayMeters of(MeterRegistry registry) {
    return new RelayMeters(
        registry,
        Counter.builder("ax.outbox.resent")
            .description(
                "events sent again from the outbox, not confirmed in time after their outcome")
            .register(registry),
        Counter.builder("ax.outbox.send.failed")
            .description("outbox events the broker did not take (the row stays and is relayed)")
            .register(registry));
  }

  /** {@code events} are sent again: nobody confirmed them within the relay's wait. */
  void resent(int events) {
    resent.increment(events);
  }

  /** The broker did not take {@code message}: {@code error} says why. */
  void sendFailed(OutboxMessage message, Exception error) {
    sendsFailed.increment();
    Counter.builder("ax.outbox.send.failed.by.error")
        .description("outbox events the broker did not take, by topic and error class")
        .tag("topic", message.topic())
        .tag("error", error.getClass().getSimpleName())
        .register(registry)
        .increment();
  }
}
