package dev.ax.ingest;

import dev.ax.common.thread.DaemonThreads;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes every upstream's dependency graph entry again from the database, every {@code
 * AX_DEPENDENCY_REPUBLISH}, 500 upstreams a page. Entries are whole lists written after each
 * create, and two replicas can land them out of order; this makes the compacted table converge. A
 * pass that fails is logged and the next one starts over.
 *
 * <p>Threading: the passes run on its own thread, {@code ax-ingest-graph}; {@link #start()} once,
 * {@link #close()} from any thread.
 */
final class GraphRepublisher implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(GraphRepublisher.class);

  /** Upstream task ids read (and published) per page. */
  private static final int PAGE_UPSTREAMS = 500;

  private final DependencyIntake dependencies;
  private final KafkaProducer<String, byte[]> producer;
  private final Duration every;
  private final ScheduledExecutorService scheduler = DaemonThreads.scheduler("ax-ingest-graph");

  /**
   * @param dependencies where the upstreams and their entries are read
   * @param producer ingest's own; not closed here
   * @param every the time between passes ({@code AX_DEPENDENCY_REPUBLISH})
   */
  GraphRepublisher(
      DependencyIntake dependencies, KafkaProducer<String, byte[]> producer, Duration every) {
    this.dependencies = dependencies;
    this.producer = producer;
    this.every = every;
  }

  /** The first pass one interval from now, then one every interval. */
  void start() {
    long everyMs = every.toMillis();
    scheduler.scheduleWithFixedDelay(
        this::republishQuietly, everyMs, everyMs, TimeUnit.MILLISECONDS);
  }

  private void republishQuietly() {
    try {
      int published = 0;
      String after = null;
      while (true) {
        List<String> page = dependencies.upstreamsAfter(after, PAGE_UPSTREAMS);
        if (page.isEmpty()) {
          break;
        }
        for (ProducerRecord<String, byte[]> entry : dependencies.graphEntriesOf(page)) {
          producer.send(entry);
          published++;
        }
        after = page.get(page.size() - 1);
      }
      if (published > 0) {
        log.debug("Published {} dependency graph entries again", published);
      }
    } catch (RuntimeException e) {
      log.warn("Could not publish the dependency graph again; next time: {}", e.toString());
    }
  }

  /**
   * Stops the passes, interrupting one under way, and waits for it to end: it sends on ingest's
   * producer and reads the pool, which the stage closes next.
   */
  @Override
  public void close() {
    DaemonThreads.stop(scheduler, Duration.ofSeconds(10));
  }
}
