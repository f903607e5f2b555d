package dev.ax.common.stage;

import dev.ax.common.config.CommonKeys;
import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.ConsumerLoop.BatchHandler;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * A stage, run by {@link StageMain} as its own process, whose one consumer loop dies of a bug at
 * its third poll: for {@link StageExitIT}.
 */
final class DyingStageMain {

  private DyingStageMain() {}

  public static void main(String[] args) {
    StageMain.run(
        "ax-dying",
        StageMain.Needs.KAFKA_ONLY,
        CommonKeys.class,
        config -> "no own configuration",
        (context, config) -> {
          KafkaProducer<String, byte[]> producer = context.producer("dying");
          AtomicInteger polls = new AtomicInteger();
          ConsumerLoop loop =
              context.groupLoop(
                  "dying",
                  10,
                  List.of(context.topics().completed()),
                  new BatchHandler() {
                    @Override
                    public void handle(ConsumerRecords<String, byte[]> records) {}

                    @Override
                    public void beforePoll(KafkaConsumer<String, byte[]> consumer) {
                      if (polls.incrementAndGet() == 3) {
                        throw new IllegalStateException("a bug in the stage");
                      }
                    }
                  },
                  context.parking(producer, "retry"));
          loop.start();
          return () -> {
            loop.close();
            producer.close();
          };
        });
  }
}
