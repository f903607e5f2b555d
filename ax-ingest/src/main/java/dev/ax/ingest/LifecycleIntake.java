package dev.ax.ingest;

import dev.ax.common.contract.TaskCommand;
import dev.ax.common.kafka.AnnouncementRecords;
import dev.ax.common.model.TriggerGroups;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the commands that change existing tasks (CANCEL, DELETE, PAUSE, RESUME, RUN_NOW, UPDATE)
 * through {@link TaskLifecycleStore} and {@link TaskUpdateStore}, one transaction each, announces
 * the instances a RESUME made SCHEDULED again (or a RUN_NOW created), and says which commands to
 * reject and why. A command without a {@code commandId} is known by its record's position ({@code
 * topic-partition@offset}): a redelivery of the same record after a crash is then a duplicate too.
 *
 * <p>A PAUSE or RESUME of a group walks the group's tasks in pages of {@link #GROUP_PAGE_TASKS}
 * ({@link GroupLifecycleStore}), one transaction per page, and waits for each page's announcements
 * before reading the next, so neither memory nor the broker's backlog grows with the group. The
 * tasks are those in the group when each page is read: a task created in the group after the walk
 * passed its id is not changed.
 *
 * <p>Threading: called from ingest's consumer thread only.
 */
final class LifecycleIntake {

  private static final Logger log = LoggerFactory.getLogger(LifecycleIntake.class);

  /** Tasks per page (and per transaction) of a group command. */
  static final int GROUP_PAGE_TASKS = 500;

  private final StageContext context;
  private final KafkaProducer<String, byte[]> producer;
  private final TaskLifecycleStore store;
  private final GroupLifecycleStore groups;
  private final TaskUpdateStore updates;
  private final TaskStore tasks;
  private final FireTimes fireTimes = new FireTimes();
  private final Map<String, Counter> applied = new HashMap<>();
  private final Counter duplicates;

  /**
   * @param producer sends the announcements of resumed instances (ingest's own)
   */
  LifecycleIntake(
      TaskLifecycleStore store, KafkaProducer<String, byte[]> producer, StageContext context) {
    this.store = store;
    this.updates = new TaskUpdateStore(context.dataSource(), fireTimes);
    this.groups = new GroupLifecycleStore(context.dataSource());
    this.tasks = new TaskStore(context.dataSource());
    this.producer = producer;
    this.context = context;
    MeterRegistry meters = context.meters();
    for (TaskLifecycleStore.Transition transition : TaskLifecycleStore.Transition.ALL) {
      applied.put(
          transition.name(), meters.counter("ax.ingest." + transition.verb().replace(' ', '_')));
    }
    this.duplicates = meters.counter("ax.ingest.lifecycle.duplicates");
  }

  /**
   * Applies {@code command}, read from {@code record}; the announcements of resumed instances go
   * into {@code sends} (a group command's are sent and awaited page by page).
   *
   * @return the reason to reject it with, or empty when it applied (or had applied before)
   */
  Optional<String> apply(
      ConsumerRecord<String, byte[]> record,
      TaskCommand command,
      List<Future<RecordMetadata>> sends)
      throws InterruptedException, ExecutionException {
    TaskLifecycleStore.Transition transition = TaskLifecycleStore.Transition.of(command.type());
    String commandId =
        command.commandId() != null
            ? command.commandId()
            : record.topic() + "-" + record.partition() + "@" + record.offset();
    long nowMs = context.clock().millis();
    TaskLifecycleStore.Request request =
        new TaskLifecycleStore.Request(
            commandId,
            command.taskId(),
            command.group(),
            command.reason(),
            command.traceId(),
            context.nodeId(),
            nowMs,
            command.interrupt());
    if (command.isGroup()) {
      return applyToGroup(transition, request);
    }
    TaskLifecycleStore.Result result =
        transition == TaskLifecycleStore.Transition.UPDATE
            ? updates.update(request, command.spec())
            : store.apply(transition, request);
    if (result instanceof TaskLifecycleStore.Result.Refused refused) {
      return Optional.of(refused.reason());
    }
    if (result instanceof TaskLifecycleStore.Result.Applied done) {
      applied.get(transition.name()).increment();
      log.info(
          "Task {} {} by command {}{}: {} instance(s) {} [traceId={}]",
          command.taskId(),
          transition.verb(),
          commandId,
          command.reason() == null ? "" : " (" + command.reason() + ")",
          done.instances(),
          transition.toStatus(),
          command.traceId());
      announce(command.taskId(), done.toAnnounce(), sends);
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

  /**
   * Applies a group's PAUSE or RESUME to each of its tasks in the state it applies to, a page at a
   * time. Rejected only when the group holds no task at all (a misspelt group, most likely); a
   * group whose tasks are all paused already is a PAUSE that changes nothing.
   */
  private Optional<String> applyToGroup(
      TaskLifecycleStore.Transition transition, TaskLifecycleStore.Request request)
      throws InterruptedException, ExecutionException {
    String group = request.group();
    int tasksChanged = 0;
    int tasksBefore = 0;
    int refused = 0;
    int instances = 0;
    String after = "";
    List<GroupLifecycleStore.GroupTask> page;
    do {
      page = groups.page(transition, group, after, GROUP_PAGE_TASKS);
      if (page.isEmpty()) {
        break;
      }
      GroupLifecycleStore.PageResult result = groups.apply(transition, request, page);
      tasksChanged += result.applied();
      tasksBefore += result.duplicates();
      refused += result.refused();
      instances += result.instances();
      applied.get(transition.name()).increment(result.applied());
      duplicates.increment(result.duplicates());
      List<Future<RecordMetadata>> pageSends = new ArrayList<>();
      for (GroupLifecycleStore.Resumed resumed : result.resumed()) {
        announce(
            resumed.task().taskId(), resumed.task().triggerGroup(), resumed.instances(), pageSends);
      }
      for (Future<RecordMetadata> send : pageSends) {
        send.get(); // one page's announcements in flight at a time
      }
      after = page.get(page.size() - 1).taskId();
    } while (page.size() == GROUP_PAGE_TASKS);
    if (tasksChanged == 0 && tasksBefore == 0 && refused == 0 && !groups.hasTasks(group)) {
      return Optional.of(transition.name() + " for group " + group + ", which has no tasks");
    }
    log.info(
        "Group {} {} by command {}{}: {} task(s), {} instance(s) {}; {} changed by it before, {}"
            + " changed meanwhile and left [traceId={}]",
        group,
        transition.verb(),
        request.commandId(),
        request.reason() == null ? "" : " (" + request.reason() + ")",
        tasksChanged,
        instances,
        transition.toStatus(),
        tasksBefore,
        refused,
        request.traceId());
    return Optional.empty();
  }

  /**
   * Tells the ticker of the instances a RESUME made SCHEDULED again (it fires them late) or a
   * RUN_NOW created (due now).
   */
  private void announce(
      String taskId, List<DueInstance> resumed, List<Future<RecordMetadata>> sends) {
    if (resumed.isEmpty()) {
      return;
    }
    Optional<StoredTask> task = tasks.find(taskId);
    if (task.isEmpty()) {
      return; // removed meanwhile: nothing to fire
    }
    announce(taskId, TriggerGroups.keyOf(task.get().spec().trigger()), resumed, sends);
  }

  private void announce(
      String taskId,
      String triggerGroup,
      List<DueInstance> resumed,
      List<Future<RecordMetadata>> sends) {
    for (DueInstance instance : resumed) {
      sends.add(
          producer.send(
              AnnouncementRecords.of(
                  context.topics().scheduled(),
                  taskId,
                  instance.instanceId(),
                  instance.dueAtMs(),
                  instance.traceId(),
                  instance.seq(),
                  triggerGroup)));
    }
  }
}
