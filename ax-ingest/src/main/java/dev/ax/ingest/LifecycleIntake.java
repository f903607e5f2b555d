package dev.ax.ingest;

import dev.ax.common.contract.CommandType;
import dev.ax.common.contract.TaskCommand;
import dev.ax.common.stage.StageContext;
import io.micrometer.core.instrument.Counter;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the commands that change an existing task (CANCEL) through {@link TaskLifecycleStore},
 * one transaction each, and says which to reject and why. A command without a {@code commandId} is
 * known by its record's position ({@code topic-partition@offset}): a redelivery of the same record
 * after a crash is then a duplicate too.
 *
 * <p>Threading: called from ingest's consumer thread only.
 */
final class LifecycleIntake {

  private static final Logger log = LoggerFactory.getLogger(LifecycleIntake.class);

  private final TaskLifecycleStore store;
  private final StageContext context;
  private final Counter cancelled;
  private final Counter duplicates;

  LifecycleIntake(TaskLifecycleStore store, StageContext context) {
    this.store = store;
    this.context = context;
    this.cancelled = context.meters().counter("ax.ingest.cancelled");
    this.duplicates = context.meters().counter("ax.ingest.lifecycle.duplicates");
  }

  /**
   * Applies {@code command}, read from {@code record}.
   *
   * @return the reason to reject it with, or empty when it applied (or had applied before)
   */
  Optional<String> apply(ConsumerRecord<String, byte[]> record, TaskCommand command) {
    if (command.type() != CommandType.CANCEL) {
      throw new IllegalArgumentException("not a lifecycle command: " + command.type());
    }
    String commandId =
        command.commandId() != null
            ? command.commandId()
            : record.topic() + "-" + record.partition() + "@" + record.offset();
    TaskLifecycleStore.Result result =
        store.cancel(
            new TaskLifecycleStore.Request(
                commandId,
                command.taskId(),
                command.reason(),
                command.traceId(),
                context.nodeId(),
                context.clock().millis()));
    if (result instanceof TaskLifecycleStore.Result.Refused refused) {
      return Optional.of(refused.reason());
    }
    if (result instanceof TaskLifecycleStore.Result.Applied applied) {
      cancelled.increment();
      log.info(
          "Task {} cancelled by command {}{}: {} pending instance(s) cancelled [traceId={}]",
          command.taskId(),
          commandId,
          command.reason() == null ? "" : " (" + command.reason() + ")",
          applied.instances(),
          command.traceId());
    } else {
      duplicates.increment();
      log.info(
          "Command {} for task {} applied before; ignored [traceId={}]",
          commandId,
          command.taskId(),
          command.traceId());
    }
    return Optional.empty();
  }
}
