package dev.ax.systemtest;

import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.thread.DaemonThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Sends one small record to a topic of its own every 50 ms and waits for the broker's
 * acknowledgement ({@code acks=all}), keeping how long each took: how the broker answered while
 * tasks started late. A send that fails or takes over 2 s (the broker away) is kept as such.
 *
 * <p>Thread-safe: the samples are guarded by {@code this}.
 */
final class BrokerProbe implements AutoCloseable {

  private static final long EVERY_MS = 50;
  private static final long GIVE_UP_MS = 2_000;

  /** One send answered at {@code atMs}, after {@code rttMs}; {@code failed} if it was not. */
  record Sample(long atMs, long rttMs, boolean failed) {}

  private final KafkaProducer<String, byte[]> producer;
  private final String topic;
  private final List<Sample> samples = new ArrayList<>();
  private final Thread thread;
  private volatile boolean closed;

  private BrokerProbe(KafkaProducer<String, byte[]> producer, String topic) {
    this.producer = producer;
    this.topic = topic;
    this.thread = DaemonThreads.thread("broker-probe", this::run);
  }

  /** Starts probing {@code topic}, which must exist. */
  static BrokerProbe start(String bootstrap, String topic) {
    BrokerProbe probe =
        new BrokerProbe(
            KafkaClients.producer(KafkaConnection.plaintext(bootstrap), "broker-probe"), topic);
    probe.thread.start();
    return probe;
  }

  private void run() {
    while (!closed) {
      long startNs = System.nanoTime();
      boolean failed = false;
      try {
        producer
            .send(new ProducerRecord<>(topic, "probe", new byte[16]))
            .get(GIVE_UP_MS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        failed = true;
      }
      long rttMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
      synchronized (this) {
        samples.add(new Sample(System.currentTimeMillis(), rttMs, failed));
      }
      try {
        Thread.sleep(EVERY_MS); // the probing period
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  synchronized List<Sample> samples() {
    return List.copyOf(samples);
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    producer.close(java.time.Duration.ofSeconds(2));
  }
}
