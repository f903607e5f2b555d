package dev.ax.ingest;

import dev.ax.common.contract.TaskCommand;
import dev.ax.common.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the commands that change existing tasks (CANCEL, DELETE, PAUSE, RESUME, RUN_NOW, UPDATE)
 * through {@link TaskLifecycleStore} and {@link TaskUpdateStore}, one transaction each, announces
 * the instances a RESUME made SCHEDULED again (or a RUN_NOW created) through {@link
 * LifecycleAnnouncements}, and says which commands to reject and why. A command without a {@code
 * commandId} is known by its record's position ({@code topic-partition@offset}): a redelivery of
 * the same record after a crash is then a duplicate too.
 *
 * <p>A PAUSE or RESUME of a group walks the group's tasks in pages of {@link #GROUP_PAGE_TASKS}
 * ({@link GroupLifecycleStore}), one transaction per page, and waits for each page's announcements
 * before reading the next, so neither memory nor the broker's backlog grows with the group. The
 * tasks are those in the group when each page is read: a task created in the group after the walk
 * passed its id is not changed.
 *
 * <p>Threading: called from ingest's consumer thread only.
 *
 * @param clock when each command applies
 * @param actor who applies them (the node id), recorded in the audit rows
 */
record LifecycleIntake(
    LifecycleStores stores,
    LifecycleAnnouncements announcements,
    LifecycleCounters counters,
    Clock clock,
    String actor) {

  private static final Logger log = LoggerFactory.getLogger(LifecycleIntake.class);

  /** Tasks per page (and per transaction) of a group command. */
  static final int GROUP_PAGE_TASKS = 500;

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
    long nowMs = clock.millis();
    TaskLifecycleStore.Request request =
        new TaskLifecycleStore.Request(
            commandId,
            command.taskId(),
            command.group(),
            command.reason(),
            command.traceId(),
            actor,
            nowMs,
            command.interrupt());
    if (command.isGroup()) {
      return applyToGroup(transition, request);
    }
    TaskLifecycleStore.Result result =
        transition == TaskLifecycleStore.Transition.UPDATE
            ? stores.updates().update(request, command.spec())
            : stores.tasks().apply(transition, request);
    if (result instanceof TaskLifecycleStore.Result.Refused refused) {
      return Optional.of(refused.reason());
    }
    if (result instanceof TaskLifecycleStore.Result.Applied done) {
      counters.applied(transition, 1);
      counters.pausedFiringsSkipped(done.pausedFiringsSkipped());
      log.info(
          "Task {} {} by command {}{}: {} instance(s) {} [traceId={}]",
          command.taskId(),
          transition.verb(),
          commandId,
          command.reason() == null ? "" : " (" + command.reason() + ")",
          done.instances(),
          transition.toStatus(),
          command.traceId());
      announcements.announce(command.taskId(), done.toAnnounce(), sends);
    } else {
      counters.duplicates(1);
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
    GroupLifecycleStore groups = stores.groups();
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
      counters.applied(transition, result.applied());
      counters.duplicates(result.duplicates());
      counters.pausedFiringsSkipped(result.pausedFiringsSkipped());
      List<Future<RecordMetadata>> pageSends = new ArrayList<>();
      for (GroupLifecycleStore.Resumed resumed : result.resumed()) {
        announcements.announce(
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
}
