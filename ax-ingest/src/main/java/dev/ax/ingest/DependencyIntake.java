package dev.ax.ingest;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.DependencyEntry;
import dev.ax.common.contract.Echo;
import dev.ax.common.contract.TaskCommand;
import dev.ax.common.kafka.AnnouncementRecords;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.TaskState;
import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerGroups;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Ingest's side of dependency triggers: validates DEPENDENCY tasks (every upstream must exist, no
 * cycle), publishes the graph to the compacted {@code ax.task.dependencies} topic, and turns the
 * resolver's TRIGGER commands into instances (deterministic id per task and flow run, so a repeated
 * trigger creates nothing). Holds nothing but its (thread-safe) stores: the consumer thread and the
 * graph republisher both use it.
 *
 * @param instances creates the instances TRIGGERs make
 * @param lifecycle creates those of paused tasks, PAUSED (they wait for the RESUME)
 * @param actor who creates them (the node id), recorded in the audit rows
 */
record DependencyIntake(
    TaskStore tasks,
    InstanceStore instances,
    TaskLifecycleStore lifecycle,
    Topics topics,
    String actor) {

  /** How far back a TRIGGER's instance may be due (see {@link #dueAtMs}). */
  static final Duration MAX_TRIGGER_AGE = Duration.ofHours(1);

  /** What a batch of TRIGGER commands produced. */
  record Triggered(
      List<ProducerRecord<String, byte[]>> announcements,
      Map<TaskCommand, String> rejections,
      int duplicates) {}

  /**
   * Why a DEPENDENCY task cannot be accepted, or null when it can.
   *
   * @param acceptedInBatch task ids accepted earlier in the same batch (they exist once it commits)
   */
  String rejectionOf(TaskCommand command, Set<String> acceptedInBatch) {
    Trigger.Dependency dependency = (Trigger.Dependency) command.spec().trigger();
    List<String> upstreams = dependency.upstreamTaskIds();
    Set<String> known = new HashSet<>(tasks.existing(upstreams));
    known.addAll(acceptedInBatch);
    List<String> unknown = upstreams.stream().filter(u -> !known.contains(u)).toList();
    if (upstreams.contains(command.taskId())) {
      return "dependency would close a cycle: " + command.taskId() + " -> " + command.taskId();
    }
    if (!unknown.isEmpty()) {
      // Up to 100 ids of up to 128 characters: capped like every echoed value.
      return "dependency names unknown upstream task(s) " + Echo.cut(unknown.toString());
    }
    Optional<List<String>> cycle =
        DependencyGraph.cycleThrough(command.taskId(), upstreams, tasks::upstreamsOf);
    return cycle
        .map(path -> "dependency would close a cycle: " + Echo.cut(String.join(" -> ", path)))
        .orElse(null);
  }

  /**
   * The graph entries to publish after DEPENDENCY tasks were created: one record per upstream they
   * wait for, holding every task that waits for it (the compacted topic keeps the latest).
   */
  List<ProducerRecord<String, byte[]>> graphEntries(List<NewTask> createdDependencyTasks) {
    Set<String> upstreams = new LinkedHashSet<>();
    for (NewTask task : createdDependencyTasks) {
      upstreams.addAll(((Trigger.Dependency) task.spec().trigger()).upstreamTaskIds());
    }
    return graphEntriesOf(upstreams);
  }

  /**
   * Up to {@code limit} task ids that some task waits for, after {@code after} (null: from the
   * start), by id: a page of the graph's upstreams.
   */
  List<String> upstreamsAfter(String after, int limit) {
    return tasks.upstreamsAfter(after, limit);
  }

  /** The current graph entry of each upstream, read from the database. */
  List<ProducerRecord<String, byte[]>> graphEntriesOf(Collection<String> upstreams) {
    List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
    tasks
        .dependentsOf(upstreams)
        .forEach(
            (upstream, downstreams) -> {
              List<DependencyEntry.Downstream> entries =
                  downstreams.stream()
                      .map(d -> new DependencyEntry.Downstream(d.taskId(), d.upstreams()))
                      .toList();
              records.add(
                  new ProducerRecord<>(
                      topics.dependencies(),
                      upstream,
                      AxJson.write(new DependencyEntry(AxJson.VERSION, upstream, entries))));
            });
    return records;
  }

  /**
   * Creates the instances TRIGGER commands ask for, due when their upstream succeeded (at most
   * {@link #MAX_TRIGGER_AGE} ago; now when the command does not say), and announces them.
   */
  /**
   * The due time of a TRIGGER's instance: the upstream's success, so the downstream's lateness
   * (fire, claim, start) counts from when it could first have run, through the resolver and ingest.
   * Never after now; never further back than {@link #MAX_TRIGGER_AGE}, so a TRIGGER replayed long
   * after, or one with a made-up time, runs as any late instance does.
   */
  static long dueAtMs(TaskCommand trigger, long nowMs) {
    Long succeededAtMs = trigger.upstreamSucceededAtMs();
    if (succeededAtMs == null) {
      return nowMs;
    }
    return Math.min(nowMs, Math.max(succeededAtMs, nowMs - MAX_TRIGGER_AGE.toMillis()));
  }

  Triggered trigger(List<TaskCommand> triggers, long nowMs) {
    Collection<String> ids = triggers.stream().map(TaskCommand::taskId).distinct().toList();
    Map<String, StoredTask> found = tasks.findAll(ids);
    Map<TaskCommand, String> rejections = new IdentityHashMap<>();
    List<NewInstance> wanted = new ArrayList<>();
    List<NewInstance> waiting = new ArrayList<>();
    for (TaskCommand command : triggers) {
      StoredTask task = found.get(command.taskId());
      if (task == null) {
        rejections.put(command, "TRIGGER for unknown task " + command.taskId());
        continue;
      }
      if (task.state().isStopped()) {
        rejections.put(
            command,
            "TRIGGER for "
                + task.state().name().toLowerCase(Locale.ROOT)
                + " task "
                + command.taskId());
        continue;
      }
      if (!(task.spec().trigger() instanceof Trigger.Dependency)) {
        rejections.put(
            command, "TRIGGER for task " + command.taskId() + ", which is not a DEPENDENCY task");
        continue;
      }
      // A paused task's trigger waits: its instance is created PAUSED, SCHEDULED on RESUME.
      (task.state() == TaskState.PAUSED ? waiting : wanted)
          .add(
              new NewInstance(
                  InstanceIds.inFlow(command.taskId(), command.flowRunId()),
                  command.taskId(),
                  task.version(),
                  dueAtMs(command, nowMs),
                  command.traceId(),
                  "triggered: every upstream succeeded in flow run " + command.flowRunId(),
                  command.flowRunId(),
                  false));
    }
    Map<String, Long> created = instances.create(wanted, actor, nowMs);
    int duplicates = waiting.size() - lifecycle.createPaused(waiting, actor, nowMs);
    List<ProducerRecord<String, byte[]>> announcements = new ArrayList<>();
    for (NewInstance instance : wanted) {
      Long seq = created.get(instance.instanceId());
      if (seq == null) {
        duplicates++; // this task ran (or runs) in this flow run already
        continue;
      }
      announcements.add(
          AnnouncementRecords.of(
              topics.scheduled(),
              instance,
              seq,
              TriggerGroups.keyOf(found.get(instance.taskId()).spec().trigger())));
    }
    return new Triggered(announcements, rejections, duplicates);
  }
}
