package dev.ax.cli.command;

import dev.ax.cli.kafka.TopicTail;
import dev.ax.cli.text.EventLines;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.thread.DaemonThreads;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prints a line for every completion event that arrives on the completed topic while {@code ax up}
 * runs, so a person sees their tasks end (the dispatcher logs successes at DEBUG only).
 *
 * <p>Threading: the tail is opened by the caller's thread, then polled only by this class's own
 * thread ({@code ax-up-completions}); {@link #close()} wakes that thread, joins it, then closes the
 * tail, so the consumer is used by one thread at a time.
 */
final class CompletionPrinter implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(CompletionPrinter.class);
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(500);

  private final TopicTail tail;
  private final PrintWriter out;
  private final Thread thread;
  private volatile boolean running = true;

  private CompletionPrinter(TopicTail tail, PrintWriter out) {
    this.tail = tail;
    this.out = out;
    this.thread = DaemonThreads.thread("ax-up-completions", this::run);
  }

  /** Starts printing what arrives on {@code completedTopic} from now on. */
  static CompletionPrinter start(KafkaConnection kafka, String completedTopic, PrintWriter out) {
    TopicTail tail = TopicTail.open(kafka, List.of(completedTopic), TopicTail.From.END);
    CompletionPrinter printer = new CompletionPrinter(tail, out);
    printer.thread.start();
    return printer;
  }

  private void run() {
    try {
      while (running) {
        for (ConsumerRecord<String, byte[]> record : tail.poll(POLL_TIMEOUT)) {
          print(record);
        }
      }
    } catch (WakeupException e) {
      // close() asked us to stop
    } catch (RuntimeException e) {
      log.warn("Stopped printing completion events: {}", e.toString());
    }
  }

  private void print(ConsumerRecord<String, byte[]> record) {
    try {
      out.println(EventLines.completed(AxJson.read(record.value(), TaskCompletedEvent.class)));
    } catch (RuntimeException e) {
      out.println("unreadable completion event (key " + record.key() + "): " + e.getMessage());
    }
    out.flush();
  }

  @Override
  public void close() {
    running = false;
    tail.wakeup();
    DaemonThreads.awaitEnd(thread, Duration.ofSeconds(5));
    tail.close();
  }
}
