package dev.ax.retry;

import dev.ax.common.kafka.DueRecords;
import dev.ax.common.stage.Switches;
import dev.ax.common.store.DueInstance;
import dev.ax.common.trace.TraceLog;
import dev.ax.retry.RetryStore.PendingRetry;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link RetryPort} over {@link RetryStore}, the stage's producer and its switches. */
record StoreRetryPort(
    RetryStore retries,
    KafkaProducer<String, byte[]> producer,
    Switches switches,
    String dueRetryTopic,
    String nodeId)
    implements RetryPort {

  private static final Logger log = LoggerFactory.getLogger(StoreRetryPort.class);

  @Override
  public List<PendingRetry> pendingRetries(long untilMs, int limit) {
    return retries.findPendingRetries(untilMs, limit);
  }

  @Override
  public List<DueInstance> dispatch(Collection<Long> seqs, long nowMs) {
    return retries.dispatchRetries(seqs, nodeId, nowMs);
  }

  @Override
  public void emitDue(DueInstance instance, long nowMs) {
    producer.send(
        DueRecords.of(dueRetryTopic, instance, 0, nowMs, null),
        (metadata, error) -> {
          if (error != null) {
            // DISPATCHED already: the ticker's reaper emits it again when nobody claims it.
            try (TraceLog fields =
                TraceLog.ofInstance(instance.traceId(), instance.taskId(), instance.instanceId())) {
              log.warn("Retry of {} not emitted: {}", instance.instanceId(), error.toString());
            }
          }
        });
  }

  @Override
  public long countRetriesInFlight() {
    return retries.countRetriesInFlight();
  }

  @Override
  public boolean retriesEnabled() {
    return switches.retriesEnabled();
  }
}
