package dev.ax.ingest;

import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.FetchPause;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code intake} switch on ingest's consumer: while it is off, every assigned partition of
 * {@code ax.task.commands} is paused, so commands wait in Kafka (the group keeps its members and
 * offsets) and are read, in order, once it is on again. A batch already polled is still handled.
 *
 * <p>Threading: the consumer loop's thread only.
 */
final class IntakeGate implements ConsumerLoop.BatchHandler {

  private static final Logger log = LoggerFactory.getLogger(IntakeGate.class);

  private final ConsumerLoop.BatchHandler batches;
  private final BooleanSupplier intakeOn;
  private final FetchPause fetching = new FetchPause();

  IntakeGate(ConsumerLoop.BatchHandler batches, BooleanSupplier intakeOn) {
    this.batches = batches;
    this.intakeOn = intakeOn;
  }

  @Override
  public void handle(ConsumerRecords<String, byte[]> records) throws Exception {
    batches.handle(records);
  }

  @Override
  public void beforePoll(KafkaConsumer<String, byte[]> consumer) {
    switch (fetching.apply(consumer, !intakeOn.getAsBoolean())) {
      case PAUSED -> log.info("Intake off: reading of commands paused; they wait in Kafka");
      case RESUMED -> log.info("Intake on: reading of commands resumed");
      case NONE -> {}
    }
  }
}
