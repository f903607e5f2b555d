package dev.ax.cli.command;

import dev.ax.api.audit.OperatorLog;
import dev.ax.api.kafka.CommandSender;
import dev.ax.cli.task.RequeueStore;
import dev.ax.common.kafka.AnnouncementRecords;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TriggerGroups;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskStore;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code ax requeue}: gives a group's backlog a fresh firing. DISPATCHED instances (due events
 * lost, or a dispatcher that will not claim them) go back to SCHEDULED with an audit row, and they
 * and SCHEDULED ones (an announcement lost) are announced to the ticker again, which fires them at
 * once. Paced: a page at a time, at most {@code --rate} instances a second. A requeued instance
 * still runs once: its claim is conditional, so whichever of its due events (an old one still on
 * its way, or the new firing's) comes first wins and the other claims nothing. A periodic task's
 * requeued firing is late, so its misfire policy applies. Runs on the main thread.
 */
@Command(
    name = "requeue",
    description =
        "Give a group's DISPATCHED or SCHEDULED backlog a fresh firing: back to SCHEDULED"
            + " (audited) and announced to the ticker again, paced.")
public final class RequeueCommand extends WorkDirCommand {

  private static final int PAGE = 100;

  @Option(names = "--group", required = true, paramLabel = "<group>", description = "The group.")
  private String group;

  @Option(
      names = "--status",
      required = true,
      paramLabel = "<status>",
      description = "DISPATCHED or SCHEDULED.")
  private String status;

  @Option(
      names = "--due-from",
      paramLabel = "<instant>",
      description = "Only instances due at or after this ISO-8601 instant.")
  private Instant dueFrom;

  @Option(
      names = "--due-to",
      paramLabel = "<instant>",
      description = "Only instances due before this ISO-8601 instant (default: now).")
  private Instant dueTo;

  @Option(
      names = "--rate",
      defaultValue = "500",
      paramLabel = "<per-second>",
      description = "At most this many instances a second (default: ${DEFAULT-VALUE}).")
  private int ratePerSecond;

  @Option(
      names = "--limit",
      defaultValue = "100000",
      paramLabel = "<n>",
      description = "At most this many in all (default: ${DEFAULT-VALUE}).")
  private int limit;

  @Option(names = "--reason", required = true, paramLabel = "<text>", description = "Why.")
  private String reason;

  @Override
  public Integer call() throws Exception {
    InstanceStatus from = statusOption();
    OptionChecks.requireInRange(spec, "--rate", ratePerSecond, 1, 100_000);
    OptionChecks.requireInRange(spec, "--limit", limit, 1, 10_000_000);
    if (reason.isBlank() || reason.chars().anyMatch(Character::isISOControl)) {
      throw new ParameterException(spec.commandLine(), "--reason must be one line of text");
    }
    if (dueFrom != null && dueTo != null && !dueTo.isAfter(dueFrom)) {
      throw new ParameterException(spec.commandLine(), "--due-to must be after --due-from");
    }
    return CliDatabase.run(spec, workDir, "ax-requeue", (db, out) -> requeue(db, out, from));
  }

  private InstanceStatus statusOption() {
    String upper = status.toUpperCase(Locale.ROOT);
    if (!upper.equals("DISPATCHED") && !upper.equals("SCHEDULED")) {
      throw new ParameterException(
          spec.commandLine(), "--status must be DISPATCHED or SCHEDULED: " + status);
    }
    return InstanceStatus.valueOf(upper);
  }

  private int requeue(CliDatabase db, PrintWriter out, InstanceStatus from) throws Exception {
    String operator = Operator.name();
    String auditReason = "requeued by " + operator + ": " + reason;
    long nowMs = db.clock.millis();
    RequeueStore.Backlog backlog =
        new RequeueStore.Backlog(
            group,
            from,
            dueFrom == null ? Long.MIN_VALUE : dueFrom.toEpochMilli(),
            dueTo == null ? nowMs + 1 : dueTo.toEpochMilli());
    RequeueStore store = new RequeueStore(db.dataSource);
    TaskStore tasks = new TaskStore(db.dataSource);
    BrokerLocator.Target broker = workDir.locateBroker(db.config);
    Topics topics = new Topics(broker.topicPrefix());
    long pauseMs = Math.max(1, 1000L * PAGE / ratePerSecond);
    int requeued = 0;
    long afterSeq = Long.MIN_VALUE;
    try (CommandSender sender = CommandSender.open(broker.kafka(), "ax-requeue")) {
      while (requeued < limit) {
        List<DueInstance> page = store.page(backlog, afterSeq, Math.min(PAGE, limit - requeued));
        if (page.isEmpty()) {
          break;
        }
        afterSeq = page.get(page.size() - 1).seq();
        List<DueInstance> moved =
            from == InstanceStatus.DISPATCHED
                ? store.requeue(
                    page, "ax requeue (" + operator + ")", auditReason, db.clock.millis())
                : page;
        announce(sender, topics, tasks, moved);
        requeued += moved.size();
        out.println("requeued " + requeued + " so far");
        out.flush();
        Thread.sleep(pauseMs); // the rate limit, not synchronisation
      }
    } catch (CommandSender.SendFailedException e) {
      throw new CliFailure(ExitCodes.FAILED, e.getMessage() + " " + broker.hint());
    }
    new OperatorLog(db.dataSource)
        .record(
            operator,
            "requeue",
            "group " + group + " " + from + " (" + requeued + " instance(s))",
            reason,
            db.clock.millis());
    out.println(
        requeued
            + " instance(s) of group "
            + group
            + " requeued from "
            + from
            + "; the ticker fires them at once");
    return ExitCodes.OK;
  }

  /** Announces {@code instances} on {@code ax.task.scheduled}; waits for the broker. */
  private static void announce(
      CommandSender sender, Topics topics, TaskStore tasks, List<DueInstance> instances)
      throws InterruptedException {
    if (instances.isEmpty()) {
      return;
    }
    Map<String, StoredTask> byId =
        tasks.findAll(instances.stream().map(DueInstance::taskId).distinct().toList());
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    for (DueInstance instance : instances) {
      StoredTask task = byId.get(instance.taskId());
      if (task == null) {
        continue; // no task: nothing to fire
      }
      ProducerRecord<String, byte[]> record =
          AnnouncementRecords.of(
              topics.scheduled(),
              instance.taskId(),
              instance.instanceId(),
              instance.dueAtMs(),
              instance.traceId(),
              instance.seq(),
              TriggerGroups.keyOf(task.spec().trigger()));
      sends.add(sender.sendAsync(record)); // with its trace header
    }
    for (Future<RecordMetadata> send : sends) {
      sender.await(send);
    }
  }
}
