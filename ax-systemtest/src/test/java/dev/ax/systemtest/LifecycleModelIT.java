package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.cli.command.ExitCodes;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.Jdbc;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ticker.TickerConfig;
import dev.ax.ticker.TickerStage;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The lifecycle rules as a model (DESIGN invariant 11), against the whole pipeline: from a printed
 * random seed, a sequence of operations through Kafka and the CLI, as users and operators send them
 * (CREATE of every time-driven trigger type, UPDATE of schedule, executor, group or nothing, PAUSE
 * and RESUME of tasks and groups, CANCEL, DELETE, RUN_NOW, failing runs with retries, {@code ax dlq
 * replay}, a ticker restart), interleaved with the firings they race. A reference model holds what
 * each task may do; after every step, and throughout the pause that follows it, the test asserts:
 *
 * <ul>
 *   <li>no attempt started after its task's CANCEL or DELETE applied, nor while a PAUSE applied
 *       (each "applied" is the command's row in {@code ax_task_command}; {@link #BOUND_MS} covers
 *       the stages' clocks, which are anchored to the database separately);
 *   <li>no attempt started twice, no first attempt started before its due time;
 *   <li>every run executed the spec version it was fired with (the executor sees {@code params.v},
 *       which each version sets to its own number);
 *   <li>every ACTIVE periodic task has its next firing (within {@link #CHAIN_GRACE}), a PAUSED task
 *       nothing SCHEDULED or DISPATCHED, a stopped one nothing pending, and the reaper never had to
 *       restore a chain (a restore means some path ended one);
 *   <li>a dead letter of a cancelled or deleted task is refused by {@code ax dlq replay};
 *   <li>a ONCE task whose every instance is terminal and that is not paused is ENDED, and an ENDED
 *       task has no live instance; PAUSE and RESUME of an ENDED task are refused; RUN_NOW, a replay
 *       and an UPDATE that gives it a run make it ACTIVE again.
 * </ul>
 *
 * A failure names the seed; {@code -Dax.lifecycle.seed=<seed>} repeats the same operations with the
 * same pacing (the interleaving with firings depends on timing, so a race may need a few repeats).
 * {@code -Dax.lifecycle.minutes=30} runs for that long instead of {@link #CI_STEPS} steps: the soak
 * in docs/BENCHMARKS.md.
 */
@ExtendWith(AxInfraExtension.class)
class LifecycleModelIT {

  /** Steps of the run in {@code mvn verify}: about a minute and a half. */
  private static final int CI_STEPS = 36;

  /** How late after a command applied a run it forbids may still start: clocks, not logic. */
  private static final long BOUND_MS = 500;

  /**
   * How long an ACTIVE periodic task may be seen without its next firing (FIXED_DELAY chaining).
   */
  private static final Duration CHAIN_GRACE = Duration.ofSeconds(5);

  private static final Duration APPLIED = Duration.ofSeconds(30);
  private static final int POOL = 6;

  /** A reaper that would restore a lost chain within seconds, so that a lost one shows. */
  private static final Map<String, String> SETTINGS =
      Map.of("AX_REAPER_INTERVAL", "500ms", "AX_REAPER_UNCLAIMED_AFTER", "3s");

  @Test
  void everyRunIsOneTheCommandsAppliedBeforeItAllow(AxTestEnv env) throws Exception {
    long seed = Long.getLong("ax.lifecycle.seed", new SecureRandom().nextLong());
    long minutes = Long.getLong("ax.lifecycle.minutes", 0);
    System.out.println(
        "LifecycleModelIT seed "
            + seed
            + " (repeat it with -Dax.lifecycle.seed="
            + seed
            + ")"
            + (minutes > 0 ? ", soak of " + minutes + " min" : ""));
    LifecycleProbe.EXECUTIONS.clear();
    try (TestRuntime runtime = TestRuntime.open(env, SETTINGS);
        RunningStages stages = RunningStages.on(runtime, "node-1").ingest().dispatcher().retries();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        CliRun.Target cli = CliRun.pointAt(env, runtime);
        TopicReader rejected =
            new TopicReader(runtime.bootstrapServers(), runtime.topics().commandsRejected());
        Ticker ticker = new Ticker(runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      Run run = new Run(new Random(seed), runtime, producer, ticker, seed, rejected);
      for (int i = 0; i < POOL; i++) {
        run.create();
      }
      long endNanos = System.nanoTime() + Duration.ofMinutes(minutes).toNanos();
      int steps = 0;
      while (minutes > 0 ? System.nanoTime() < endNanos : steps < CI_STEPS) {
        run.step(++steps);
      }
      run.finalCheck();
      System.out.println(
          "LifecycleModelIT seed " + seed + ": " + steps + " steps, " + run.summary());
    }
  }

  /** The ticker, restartable: a restart is one of the operations. */
  private static final class Ticker implements AutoCloseable {
    private final TestRuntime runtime;
    private TickerStage stage;

    Ticker(TestRuntime runtime) {
      this.runtime = runtime;
      start();
    }

    private void start() {
      stage =
          new TickerStage(runtime.context("node-1"), TickerConfig.from(runtime.config())).start();
    }

    void restart() {
      stage.close();
      start();
    }

    @Override
    public void close() {
      stage.close();
    }
  }

  /** What the model holds of one task. */
  private static final class ModelTask {
    final String id;
    String group;
    String type;
    int version = 1;
    String state = "ACTIVE";
    long stoppedAtMs = Long.MAX_VALUE;
    final List<long[]> pauses = new ArrayList<>(); // {pausedAtMs, resumedAtMs or MAX}

    ModelTask(String id, String group, String type) {
      this.id = id;
      this.group = group;
      this.type = type;
    }

    boolean periodic() {
      return !type.equals("ONCE");
    }

    /** Why a run of this task starting at {@code atMs} breaks the rules, or null. */
    String forbids(long atMs) {
      if (stoppedAtMs != Long.MAX_VALUE && atMs > stoppedAtMs + BOUND_MS) {
        return "started " + (atMs - stoppedAtMs) + " ms after its task was " + state;
      }
      for (long[] pause : pauses) {
        if (atMs > pause[0] + BOUND_MS && atMs < pause[1]) {
          return "started " + (atMs - pause[0]) + " ms into a PAUSE";
        }
      }
      return null;
    }
  }

  /** The operations, the model, and the checks. Confined to the test's thread. */
  private static final class Run {
    private final Random random;
    private final TestRuntime runtime;
    private final KafkaProducer<String, byte[]> producer;
    private final Ticker ticker;
    private final long seed;
    private final Jdbc jdbc;
    private final TopicReader rejected;
    private final Map<String, ModelTask> tasks = new HashMap<>();
    private final Set<String> attemptsStarted = new HashSet<>();
    private final Map<String, Integer> operations = new HashMap<>();
    private long lastAuditId;
    private int created;
    private int commands;
    private int runsChecked;
    private int executionsChecked;

    Run(
        Random random,
        TestRuntime runtime,
        KafkaProducer<String, byte[]> producer,
        Ticker ticker,
        long seed,
        TopicReader rejected) {
      this.random = random;
      this.rejected = rejected;
      this.runtime = runtime;
      this.producer = producer;
      this.ticker = ticker;
      this.seed = seed;
      this.jdbc = new Jdbc(runtime.dataSource());
    }

    String summary() {
      return operations
          + ", "
          + runsChecked
          + " attempt starts and "
          + executionsChecked
          + " executions checked";
    }

    // ---- operations ----

    void step(int step) throws Exception {
      endOneShots();
      List<ModelTask> live = tasks.values().stream().filter(t -> !stopped(t)).toList();
      ModelTask task = live.get(random.nextInt(live.size()));
      int pick = random.nextInt(100);
      String op;
      if (pick < 18) {
        op = update(task);
      } else if (pick < 32) {
        op =
            task.state.equals("ENDED")
                ? refusedOnEnded(task, random.nextBoolean() ? "PAUSE" : "RESUME")
                : task.state.equals("ACTIVE")
                    ? lifecycle(task, "PAUSE")
                    : lifecycle(task, "RESUME");
      } else if (pick < 40) {
        op = group(task.group);
      } else if (pick < 52) {
        op = task.state.equals("PAUSED") ? update(task) : lifecycle(task, "RUN_NOW");
      } else if (pick < 60) {
        op = lifecycle(task, random.nextBoolean() ? "CANCEL" : "DELETE");
        create(); // the pool stays as large
      } else if (pick < 70) {
        op = replay();
      } else if (pick < 73) {
        ticker.restart();
        op = "ticker restart";
      } else {
        op = "wait";
      }
      operations.merge(op.split(" ")[0], 1, Integer::sum);
      long paceMs = 300 + random.nextInt(2_200);
      String where = "seed " + seed + ", step " + step + " (" + op + " " + task.id + ")";
      await(where)
          .pollInterval(Duration.ofMillis(250))
          .during(Duration.ofMillis(paceMs))
          .atMost(Duration.ofMillis(paceMs).plusSeconds(30))
          .untilAsserted(() -> checkRuns(where));
      awaitChains(where);
    }

    void create() throws Exception {
      String id = "m" + (++created);
      String type = List.of("CRON", "FIXED_RATE", "FIXED_DELAY", "ONCE").get(random.nextInt(4));
      ModelTask task = new ModelTask(id, "mg" + random.nextInt(2), type);
      Commands.sendJson(
          producer,
          runtime,
          id,
          "{\"v\":1,\"taskId\":\"" + id + "\"," + body(task, trigger(type)) + "}");
      await("create " + id)
          .atMost(APPLIED)
          .until(
              () ->
                  jdbc.queryLong(
                          "task",
                          "SELECT COUNT(*) FROM ax_task WHERE task_id = ?",
                          Jdbc.Binder.values(id))
                      == 1);
      tasks.put(id, task);
    }

    private String update(ModelTask task) throws Exception {
      boolean sameTrigger = random.nextInt(4) == 0; // an UPDATE of the executor or group only
      String type =
          sameTrigger || random.nextInt(3) == 0
              ? task.type
              : List.of("CRON", "FIXED_RATE", "FIXED_DELAY", "ONCE").get(random.nextInt(4));
      String trigger = sameTrigger ? sameTrigger(task) : trigger(type);
      ModelTask next = new ModelTask(task.id, random.nextInt(4) == 0 ? "mg2" : task.group, type);
      next.version = task.version + 1;
      String commandId = "c" + (++commands);
      Commands.sendJson(
          producer,
          runtime,
          task.id,
          "{\"v\":1,\"type\":\"UPDATE\",\"taskId\":\""
              + task.id
              + "\",\"commandId\":\""
              + commandId
              + "\","
              + body(next, trigger)
              + "}");
      awaitApplied(task, commandId);
      if (task.state.equals("ENDED")) {
        task.state = "ACTIVE"; // ENDED again at the next look if the new version gave no run
      }
      task.version = next.version;
      task.type = type;
      task.group = next.group;
      lastTrigger.put(task.id, trigger);
      return "UPDATE";
    }

    private final Map<String, String> lastTrigger = new HashMap<>();

    private String sameTrigger(ModelTask task) {
      return lastTrigger.getOrDefault(task.id, trigger(task.type));
    }

    private String lifecycle(ModelTask task, String type) throws Exception {
      String commandId = "c" + (++commands);
      Commands.sendJson(producer, runtime, task.id, Commands.lifecycle(type, task.id, commandId));
      if (type.equals("PAUSE") && !task.periodic()) {
        // Its run may end (and the task with it) before the PAUSE applies: then it is refused.
        String refusal = awaitAppliedOrRefused(task, commandId);
        if (refusal != null) {
          assertThat(refusal).as("seed " + seed + ": PAUSE of " + task.id).contains("ENDED");
          task.state = "ENDED";
          return type;
        }
      }
      long appliedAtMs = awaitApplied(task, commandId);
      applyToModel(task, type, appliedAtMs);
      return type;
    }

    /** PAUSE or RESUME of an ENDED task: refused, and the task stays ENDED. */
    private String refusedOnEnded(ModelTask task, String type) throws Exception {
      String commandId = "c" + (++commands);
      Commands.sendJson(producer, runtime, task.id, Commands.lifecycle(type, task.id, commandId));
      String refusal = awaitAppliedOrRefused(task, commandId);
      assertThat(refusal)
          .as("seed " + seed + ": " + type + " of ENDED task " + task.id)
          .isEqualTo(type + " of task " + task.id + ", which is ENDED (its one-shot run is over)");
      return type + "-ended";
    }

    /** Null once {@code commandId} applied to the task, or the reason it was refused. */
    private String awaitAppliedOrRefused(ModelTask task, String commandId) {
      String needle = "\"commandId\":\"" + commandId + "\"";
      return await("seed " + seed + ": " + commandId + " applied to or refused by " + task.id)
          .atMost(APPLIED)
          .until(
              () -> {
                if (!jdbc.query(
                        "applied",
                        "SELECT 1 FROM ax_task_command WHERE task_id = ? AND command_id = ?",
                        Jdbc.Binder.values(task.id, commandId),
                        rs -> rs.getInt(1))
                    .isEmpty()) {
                  return Optional.of("");
                }
                for (ConsumerRecord<String, byte[]> record : rejected.poll()) {
                  if (record.value() != null
                      && new String(record.value(), StandardCharsets.UTF_8).contains(needle)) {
                    return Optional.of(
                        new String(
                            record.headers().lastHeader(RejectHeaders.REASON).value(),
                            StandardCharsets.UTF_8));
                  }
                }
                return Optional.<String>empty();
              },
              Optional::isPresent)
          .filter(reason -> !reason.isEmpty())
          .orElse(null);
    }

    /**
     * The reference model of a one-shot task's end: an ACTIVE ONCE task whose every instance is
     * terminal is ENDED (what the stores did in the transaction of its last instance's end).
     */
    private void endOneShots() {
      for (ModelTask task : tasks.values()) {
        if (task.state.equals("ACTIVE") && !task.periodic() && allTerminal(statuses(task.id))) {
          task.state = "ENDED";
        }
      }
    }

    private static boolean allTerminal(List<String> statuses) {
      return !statuses.isEmpty()
          && statuses.stream().allMatch(s -> InstanceStatus.valueOf(s).isTerminal());
    }

    private void applyToModel(ModelTask task, String type, long appliedAtMs) {
      switch (type) {
        case "PAUSE" -> {
          task.state = "PAUSED";
          task.pauses.add(new long[] {appliedAtMs, Long.MAX_VALUE});
        }
        case "RESUME" -> {
          task.state = "ACTIVE";
          task.pauses.get(task.pauses.size() - 1)[1] = appliedAtMs;
        }
        case "CANCEL", "DELETE" -> {
          task.state = type.equals("CANCEL") ? "CANCELLED" : "DELETED";
          task.stoppedAtMs = appliedAtMs;
        }
        case "RUN_NOW" -> task.state = "ACTIVE"; // an ENDED task runs again
        default -> {}
      }
    }

    /** A PAUSE or RESUME of a whole group: applies to each of its tasks in the state it needs. */
    private String group(String group) throws Exception {
      List<ModelTask> members =
          tasks.values().stream().filter(t -> t.group.equals(group) && !stopped(t)).toList();
      boolean pause = members.stream().anyMatch(t -> t.state.equals("ACTIVE"));
      String type = pause ? "PAUSE" : "RESUME";
      String commandId = "g" + (++commands);
      Commands.sendJson(
          producer,
          runtime,
          group,
          "{\"v\":1,\"type\":\""
              + type
              + "\",\"group\":\""
              + group
              + "\",\"commandId\":\""
              + commandId
              + "\"}");
      for (ModelTask member : members) {
        if (member.state.equals(pause ? "ACTIVE" : "PAUSED")) {
          if (pause && !member.periodic()) {
            // Its run may end before the page reaches it: then the group PAUSE leaves it ENDED.
            Long appliedAtMs = awaitAppliedOrEnded(member, commandId);
            if (appliedAtMs == null) {
              member.state = "ENDED";
              continue;
            }
            applyToModel(member, type, appliedAtMs);
            continue;
          }
          applyToModel(member, type, awaitApplied(member, commandId));
        }
      }
      return "group " + type;
    }

    /**
     * {@code ax dlq replay} of an open dead letter: replayed when its task is ACTIVE or PAUSED,
     * refused (and still OPEN) when it was cancelled or deleted.
     */
    private String replay() {
      List<Object[]> open =
          jdbc.query(
              "open dead letters",
              "SELECT id, task_id FROM ax_dead_letter WHERE state = 'OPEN' ORDER BY id",
              Jdbc.Binder.values(),
              rs -> new Object[] {rs.getLong(1), rs.getString(2)});
      if (open.isEmpty()) {
        return "wait";
      }
      Object[] letter = open.get(random.nextInt(open.size()));
      ModelTask task = tasks.get((String) letter[1]);
      CliRun replay = CliRun.ax("dlq", "replay", Long.toString((Long) letter[0]));
      String where = "seed " + seed + ": dlq replay " + letter[0] + " of " + letter[1];
      if (task == null || !stopped(task)) {
        // A replay may race the task's stop, and lose: then it says so and changes nothing.
        assertThat(replay.exitCode())
            .as(where + ": " + replay.out() + replay.err())
            .isIn(0, ExitCodes.FAILED);
        if (task != null && replay.exitCode() == 0 && task.state.equals("ENDED")) {
          task.state = "ACTIVE"; // its run is live again (and ENDED again once it is over)
        }
      } else {
        assertThat(replay.exitCode()).as(where + ": " + replay.out()).isEqualTo(ExitCodes.FAILED);
        assertThat(replay.out()).as(where).contains("refused: its task is " + task.state);
      }
      return "replay";
    }

    /** When {@code commandId} applied to the task, or null when the task is ENDED without it. */
    private Long awaitAppliedOrEnded(ModelTask task, String commandId) {
      return await("seed " + seed + ": " + commandId + " applied to " + task.id + " or it ENDED")
          .atMost(APPLIED)
          .until(
              () -> {
                List<Long> applied =
                    jdbc.query(
                        "applied",
                        "SELECT applied_at_ms FROM ax_task_command WHERE task_id = ?"
                            + " AND command_id = ?",
                        Jdbc.Binder.values(task.id, commandId),
                        rs -> rs.getLong(1));
                if (!applied.isEmpty()) {
                  return Optional.of(applied.get(0));
                }
                return stateOf(task.id).equals("ENDED") ? Optional.of(-1L) : Optional.<Long>empty();
              },
              Optional::isPresent)
          .filter(at -> at >= 0)
          .orElse(null);
    }

    private String stateOf(String taskId) {
      return jdbc.query(
              "state",
              "SELECT state FROM ax_task WHERE task_id = ?",
              Jdbc.Binder.values(taskId),
              rs -> rs.getString(1))
          .get(0);
    }

    private long awaitApplied(ModelTask task, String commandId) {
      return await("seed " + seed + ": " + commandId + " applied to " + task.id)
          .atMost(APPLIED)
          .until(
              () ->
                  jdbc.query(
                      "applied",
                      "SELECT applied_at_ms FROM ax_task_command WHERE task_id = ?"
                          + " AND command_id = ?",
                      Jdbc.Binder.values(task.id, commandId),
                      rs -> rs.getLong(1)),
              rows -> !rows.isEmpty())
          .get(0);
    }

    // ---- the task JSON ----

    private String trigger(String type) {
      return switch (type) {
        case "CRON" ->
            "{\"type\":\"CRON\",\"expression\":\"0/"
                + (1 + random.nextInt(3))
                + " * * * * ?\",\"zone\":\"UTC\"}";
        case "FIXED_RATE" ->
            "{\"type\":\"FIXED_RATE\",\"intervalMs\":" + (1_000 + 500 * random.nextInt(4)) + "}";
        case "FIXED_DELAY" ->
            "{\"type\":\"FIXED_DELAY\",\"intervalMs\":" + (1_000 + 500 * random.nextInt(3)) + "}";
        default -> "{\"type\":\"ONCE\",\"delayMs\":" + random.nextInt(4_000) + "}";
      };
    }

    /** One in four versions fails every attempt: one retry, then a dead letter. */
    private String body(ModelTask task, String trigger) {
      lastTrigger.put(task.id, trigger);
      return "\"group\":\""
          + task.group
          + "\",\"trigger\":"
          + trigger
          + ",\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"probe\"},"
          + "\"params\":{\"v\":\""
          + task.version
          + "\",\"fail\":\""
          + (random.nextInt(4) == 0)
          + "\"},\"retry\":{\"maxRetries\":1,\"backoffBaseMs\":300,\"jitter\":false},"
          + "\"timeoutMs\":5000";
    }

    private static boolean stopped(ModelTask task) {
      return task.state.equals("CANCELLED") || task.state.equals("DELETED");
    }

    // ---- the checks ----

    /** Every attempt started since the last check, and every execution recorded. */
    private void checkRuns(String where) {
      List<Object[]> starts =
          jdbc.query(
              "attempt starts",
              "SELECT l.id, l.instance_id, l.task_id, l.attempt, l.at_ms, i.due_at_ms,"
                  + " i.task_version FROM ax_instance_log l"
                  + " LEFT JOIN ax_instance i ON i.instance_id = l.instance_id"
                  + " WHERE l.to_status = 'RUNNING' AND l.id > ? ORDER BY l.id",
              Jdbc.Binder.values(lastAuditId),
              rs ->
                  new Object[] {
                    rs.getLong(1),
                    rs.getString(2),
                    rs.getString(3),
                    rs.getInt(4),
                    rs.getLong(5),
                    rs.getLong(6)
                  });
      for (Object[] start : starts) {
        lastAuditId = (Long) start[0];
        String attempt = start[1] + " attempt " + start[3];
        ModelTask task = tasks.get((String) start[2]);
        assertThat(attemptsStarted.add(attempt))
            .as(where + ": " + attempt + " started twice")
            .isTrue();
        long atMs = (Long) start[4];
        if ((Integer) start[3] == 1) {
          assertThat(atMs)
              .as(where + ": " + attempt + " started before it was due")
              .isGreaterThanOrEqualTo((Long) start[5]);
        }
        if (task != null) {
          assertThat(task.forbids(atMs)).as(where + ": " + attempt).isNull();
        }
        runsChecked++;
      }
      LifecycleProbe.Execution execution;
      while ((execution = LifecycleProbe.EXECUTIONS.poll()) != null) {
        LifecycleProbe.Execution ran = execution;
        List<Integer> versions =
            jdbc.query(
                "instance version",
                "SELECT task_version FROM ax_instance WHERE instance_id = ?",
                Jdbc.Binder.values(ran.instanceId()),
                rs -> rs.getInt(1));
        assertThat(versions).as(where + ": " + ran.instanceId()).hasSize(1);
        assertThat(ran.version())
            .as(where + ": " + ran.instanceId() + " attempt " + ran.attempt() + " ran spec version")
            .isEqualTo(Integer.toString(versions.get(0)));
        executionsChecked++;
      }
    }

    /** The pending instances each task's state allows, and a next firing for each ACTIVE chain. */
    private void awaitChains(String where) {
      await(where)
          .atMost(CHAIN_GRACE)
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () -> {
                for (ModelTask task : tasks.values()) {
                  List<String> statuses = statuses(task.id);
                  if (stopped(task)) {
                    assertThat(statuses)
                        .as(where + ": " + task.id + " is " + task.state)
                        .doesNotContain("SCHEDULED", "DISPATCHED", "PAUSED", "RETRYING");
                  } else if (!task.periodic() && !task.state.equals("PAUSED")) {
                    // The reference model: terminal instances only and not paused <=> ENDED.
                    String state = stateOf(task.id);
                    assertThat(state.equals("ENDED"))
                        .as(
                            () ->
                                where
                                    + ": ONCE task "
                                    + task.id
                                    + " is "
                                    + state
                                    + " with instances "
                                    + statuses
                                    + "; its history: "
                                    + history(task.id))
                        .isEqualTo(allTerminal(statuses));
                  } else if (task.state.equals("PAUSED")) {
                    assertThat(statuses)
                        .as(where + ": " + task.id + " is PAUSED")
                        .doesNotContain("SCHEDULED", "DISPATCHED");
                  } else if (task.periodic()) {
                    assertThat(statuses)
                        .as(
                            () ->
                                where
                                    + ": ACTIVE "
                                    + task.type
                                    + " "
                                    + task.id
                                    + " has its next firing; its history: "
                                    + history(task.id))
                        .containsAnyOf("SCHEDULED", "DISPATCHED", "RUNNING", "RETRYING");
                  }
                }
              });
      List<String> repaired =
          jdbc.query(
              "chains the reaper restored",
              "SELECT DISTINCT task_id FROM ax_instance_log WHERE reason LIKE '%chain repaired%'",
              Jdbc.Binder.values(),
              rs -> rs.getString(1));
      assertThat(repaired)
          .as(
              () ->
                  where
                      + ": chains the reaper had to restore (some path ended them): "
                      + repaired.stream().map(id -> id + ": " + history(id)).toList())
          .isEmpty();
    }

    /** The task's last audit rows and commands, for a failure's message. */
    private String history(String taskId) {
      return jdbc.query(
              "history",
              "SELECT CONCAT(at_ms, ' ', instance_id, ' ', COALESCE(from_status, '-'), '->',"
                  + " to_status, ' ', COALESCE(reason, '')) FROM ax_instance_log"
                  + " WHERE task_id = ? ORDER BY id DESC LIMIT 30",
              Jdbc.Binder.values(taskId),
              rs -> rs.getString(1))
          + " commands "
          + jdbc.query(
              "commands",
              "SELECT CONCAT(applied_at_ms, ' ', command_type, ' ', command_id)"
                  + " FROM ax_task_command WHERE task_id = ? ORDER BY applied_at_ms",
              Jdbc.Binder.values(taskId),
              rs -> rs.getString(1));
    }

    private List<String> statuses(String taskId) {
      return jdbc.query(
          "statuses",
          "SELECT status FROM ax_instance WHERE task_id = ?",
          Jdbc.Binder.values(taskId),
          rs -> rs.getString(1));
    }

    void finalCheck() {
      String where = "seed " + seed + ", at the end";
      await(where).atMost(Duration.ofSeconds(10)).untilAsserted(() -> checkRuns(where));
      awaitChains(where);
    }

    private static ConditionFactory await(String alias) {
      return Awaitility.await(alias);
    }
  }
}
