package dev.ax.embedded.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rules of {@link MachineTurns}, with real processes (file locks are per process): shared turns
 * hold the machine together, an exclusive one alone, and a waiting exclusive turn goes before the
 * shared ones that come after it.
 */
class MachineTurnsTest {

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  /** How long a turn that must wait is watched not to start. */
  private static final Duration STILL_WAITING = Duration.ofMillis(700);

  @TempDir Path dir;

  private final List<Holder> holders = new ArrayList<>();

  @AfterEach
  void stopHolders() {
    holders.forEach(Holder::kill);
  }

  @Test
  void sharedTurnsHoldTheMachineTogether() throws Exception {
    Path file = dir.resolve("machine.lock");
    Holder first = start(file, "shared");
    await().atMost(DEADLINE).untilTrue(first.holding);

    Holder second = start(file, "shared");

    await().atMost(DEADLINE).untilTrue(second.holding);
    assertThat(first.holding).isTrue();
  }

  @Test
  void anExclusiveTurnWaitsForTheSharedOneAndThenHoldsTheMachineAlone() throws Exception {
    Path file = dir.resolve("machine.lock");
    Holder shared = start(file, "shared");
    await().atMost(DEADLINE).untilTrue(shared.holding);

    Holder exclusive = start(file, "exclusive");
    await().during(STILL_WAITING).atMost(DEADLINE).untilFalse(exclusive.holding);

    shared.release();
    await().atMost(DEADLINE).untilTrue(exclusive.holding);
    Holder later = start(file, "shared");
    await().during(STILL_WAITING).atMost(DEADLINE).untilFalse(later.holding);

    exclusive.release();
    await().atMost(DEADLINE).untilTrue(later.holding);
  }

  @Test
  void aWaitingExclusiveTurnGoesBeforeSharedTurnsThatComeAfterIt() throws Exception {
    Path file = dir.resolve("machine.lock");
    Holder early = start(file, "shared");
    await().atMost(DEADLINE).untilTrue(early.holding);
    Holder exclusive = start(file, "exclusive");
    await().during(STILL_WAITING).atMost(DEADLINE).untilFalse(exclusive.holding);

    Holder late = start(file, "shared"); // arrives while the exclusive turn waits
    await().during(STILL_WAITING).atMost(DEADLINE).untilFalse(late.holding);

    early.release();
    await().atMost(DEADLINE).untilTrue(exclusive.holding);
    assertThat(late.holding).as("the late shared turn, while the exclusive one holds").isFalse();
    exclusive.release();
    await().atMost(DEADLINE).untilTrue(late.holding);
  }

  @Test
  void withoutTheBuildsPropertiesTheListenerTakesNoTurn() {
    MachineTurns listener = new MachineTurns();
    String mode = System.clearProperty(MachineTurns.MODE_PROPERTY);
    try {
      listener.testPlanExecutionStarted(null);
      listener.testPlanExecutionFinished(null);
    } finally {
      if (mode != null) {
        System.setProperty(MachineTurns.MODE_PROPERTY, mode);
      }
    }
    assertThat(dir.resolve("machine.lock")).doesNotExist();
  }

  private Holder start(Path file, String mode) throws IOException {
    Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
    Process process =
        new ProcessBuilder(
                java.toString(),
                "-cp",
                System.getProperty("java.class.path"),
                TurnHolder.class.getName(),
                file.toString(),
                mode)
            .redirectErrorStream(true)
            .start();
    Holder holder = new Holder(process);
    holders.add(holder);
    return holder;
  }

  /** One holder process and whether it has said it holds its turn. */
  private static final class Holder {
    private final Process process;
    private final AtomicBoolean holding = new AtomicBoolean();

    Holder(Process process) {
      this.process = process;
      CompletableFuture.runAsync(this::watch);
    }

    private void watch() {
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = out.readLine()) != null) {
          if (line.equals(TurnHolder.HOLDING)) {
            holding.set(true);
          }
        }
      } catch (IOException e) {
        // the process is gone; holding stays as it was
      }
    }

    void release() throws IOException, InterruptedException {
      process.getOutputStream().close();
      process.waitFor();
      holding.set(false);
    }

    void kill() {
      process.destroyForcibly();
    }
  }
}
