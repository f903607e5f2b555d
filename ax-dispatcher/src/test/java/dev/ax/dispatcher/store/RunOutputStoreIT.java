package dev.ax.dispatcher.store;

import static dev.ax.common.testing.TestTasks.newTask;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AfterFailure;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.Outcome;
import dev.ax.common.store.OutcomeRecording;
import dev.ax.common.store.RunOutput;
import dev.ax.common.store.TaskRun;
import dev.ax.common.store.TaskRuns;
import dev.ax.common.testing.StoreFixture;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A run's output is written with its outcome, in the outcome's transaction, on the success batch
 * path and the one-by-one path alike, and only for outcomes that were recorded; {@link TaskRuns}
 * reads it back beside the runs' audit rows.
 */
@ExtendWith(AxInfraExtension.class)
class RunOutputStoreIT {

  @RegisterExtension final StoreFixture store;
  private final ClaimStore claims;
  private final OutcomeStore outcomes;

  RunOutputStoreIT(AxTestEnv env) {
    store = StoreFixture.open(env);
    claims = new ClaimStore(store.runtime().dataSource());
    outcomes = new OutcomeStore(store.runtime().dataSource());
  }

  @Test
  void outputIsStoredForRecordedOutcomesOnlyOnBothPaths() {
    store
        .tasks()
        .create(
            List.of(
                newTask("ok", 100),
                newTask("bad", 100),
                newTask("quiet", 100),
                newTask("stolen", 100)),
            "ingest-1",
            10);
    List<String> ids = List.of("ok@100", "bad@100", "quiet@100", "stolen@100");
    assertThat(store.runtime().markDispatchedAsLeader("ticker-1", ids, 100)).hasSize(4);
    assertThat(claims.claim(ids, "disp-1", 10_000, 105)).hasSize(4);

    OutcomeRecording recorded =
        outcomes.recordOutcomes(
            List.of(
                new Outcome(
                    "ok@100",
                    "ok",
                    1,
                    InstanceStatus.SUCCESS,
                    null,
                    120,
                    null,
                    null,
                    new RunOutput(106, "HTTP 200\n\n{\"ok\":true}")),
                new Outcome(
                    "bad@100",
                    "bad",
                    1,
                    InstanceStatus.FAILED,
                    "exit code 2",
                    119,
                    new AfterFailure.Dead("no attempts left"),
                    null,
                    new RunOutput(107, "exit code 2\nstderr:\nno such file\n")),
                new Outcome("quiet@100", "quiet", 1, InstanceStatus.SUCCESS, null, 118),
                new Outcome(
                    "stolen@100",
                    "stolen",
                    2,
                    InstanceStatus.SUCCESS,
                    null,
                    120,
                    null,
                    null,
                    new RunOutput(106, "not this attempt's"))),
            "disp-1",
            121);

    assertThat(recorded.recorded()).hasSize(3);
    assertThat(recorded.lost())
        .singleElement()
        .satisfies(o -> assertThat(o.attempt()).isEqualTo(2));
    assertThat(
            new Jdbc(store.runtime().dataSource())
                .query(
                    "reading run output",
                    "SELECT instance_id, attempt, status, started_at_ms, finished_at_ms, output"
                        + " FROM ax_run_output ORDER BY instance_id",
                    Jdbc.Binder.values(),
                    rs ->
                        rs.getString(1)
                            + "#"
                            + rs.getInt(2)
                            + " "
                            + rs.getString(3)
                            + " "
                            + rs.getLong(4)
                            + "-"
                            + rs.getLong(5)
                            + " "
                            + rs.getString(6)))
        .as("the batched success and the one-by-one failure; nothing for a quiet or a lost run")
        .containsExactly(
            "bad@100#1 FAILED 107-119 exit code 2\nstderr:\nno such file\n",
            "ok@100#1 SUCCESS 106-120 HTTP 200\n\n{\"ok\":true}");

    TaskRuns runs = new TaskRuns(store.runtime().dataSource());
    assertThat(runs.latest("ok", 5))
        .containsExactly(
            new TaskRun(
                "ok@100", 1, "SUCCESS", 106L, 120L, 14L, null, "HTTP 200\n\n{\"ok\":true}"));
    assertThat(runs.latest("bad", 5))
        .singleElement()
        .satisfies(
            run -> {
              assertThat(run.status()).isEqualTo("FAILED");
              assertThat(run.error()).isEqualTo("exit code 2");
              assertThat(run.output()).startsWith("exit code 2");
            });
    assertThat(runs.latest("quiet", 5))
        .as("a run without output: its times from its audit rows")
        .containsExactly(new TaskRun("quiet@100", 1, "SUCCESS", 105L, 121L, 16L, null, null));
    assertThat(runs.latest("stolen", 5))
        .as("still running: its outcome was lost")
        .containsExactly(new TaskRun("stolen@100", 1, "RUNNING", 105L, null, null, null, null));
    assertThat(runs.run("ok", "ok@100", 1)).isPresent();
    assertThat(runs.run("bad", "ok@100", 1)).as("an instance of another task").isEmpty();
    assertThat(runs.run("ok", "ok@100", 2)).isEmpty();
  }
}
