package dev.ax.dispatcher.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SystemClock;
import dev.ax.dispatcher.executor.shell.Admission;
import dev.ax.dispatcher.executor.shell.ScriptRun;
import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * The shell executor against real processes: scripts are written into a temporary directory at test
 * time. No sleeps: tests wait on files the scripts write and on process state, with generous
 * deadlines; the class timeout only keeps a broken executor from hanging the build.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ShellTaskExecutorTest {

  private static final Duration GENEROUS = Duration.ofSeconds(30);
  private static final Duration LONG_TIMEOUT = Duration.ofSeconds(60);

  @TempDir Path scripts;
  @TempDir Path outside;

  /** Processes a test saw; killed afterwards whatever happened, so a failure leaves nothing. */
  private final List<ProcessHandle> seen = new ArrayList<>();

  @AfterEach
  void killWhatIsLeft() {
    seen.forEach(ProcessHandle::destroyForcibly);
  }

  private ShellTaskExecutor executor() {
    return new ShellTaskExecutor(scripts, 64 * 1024, Duration.ofSeconds(5));
  }

  private static Path script(Path dir, String name, String body) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, "#!/bin/sh\n" + body + "\n", StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    return file;
  }

  private static ExecutionContext context(
      String script, List<String> args, Map<String, String> params, Duration timeout) {
    TaskSpec task =
        TestTasks.spec(
            "task-1",
            "default",
            Trigger.Once.after(Duration.ZERO),
            ExecutorSpec.shell(script, args),
            timeout,
            RetryPolicy.DEFAULT,
            params);
    return new AttemptContext(
        task, "task-1@1000", 2, Instant.ofEpochMilli(1000), "trace-1", Instant.now().plus(timeout));
  }

  private static ExecutionContext context(String script) {
    return context(script, List.of(), Map.of(), LONG_TIMEOUT);
  }

  private static ScriptRun ran(Admission<ScriptRun> admission) {
    assertThat(admission).isInstanceOf(Admission.Admitted.class);
    return ((Admission.Admitted<ScriptRun>) admission).value();
  }

  /** A script that would leave {@code marker} behind if it ever ran. */
  private Path marker() {
    return outside.resolve("marker");
  }

  /**
   * Waits for a pid file a script wrote (atomically, by rename) and returns the pid. The process is
   * killed after the test if it is still there.
   */
  private long awaitPid(Path pidFile) throws IOException {
    await().atMost(GENEROUS).until(() -> Files.exists(pidFile));
    long pid = Long.parseLong(Files.readString(pidFile).trim());
    ProcessHandle.of(pid).ifPresent(seen::add);
    return pid;
  }

  /**
   * Exited. A zombie counts: it has exited, and only waits for a parent to reap it. Killed
   * grandchildren are re-parented to PID 1, which here (as in many containers) never reaps them,
   * and the JDK reports a zombie as alive. (A pid reused within the test's few seconds would read
   * as alive: a false failure, never a false pass.)
   */
  private static boolean isGone(long pid) {
    Optional<ProcessHandle> handle = ProcessHandle.of(pid);
    if (handle.isEmpty() || !handle.get().isAlive()) {
      return true;
    }
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return stat.charAt(stat.lastIndexOf(')') + 2) == 'Z';
    } catch (IOException e) {
      return true; // gone between the two checks
    }
  }

  private static boolean outputThreadsOf(long pid) {
    return Thread.getAllStackTraces().keySet().stream()
        .map(Thread::getName)
        .anyMatch(name -> name.startsWith("ax-shell-") && name.endsWith("-" + pid));
  }

  /** Forks {@code sleep 1000}, records both pids in {@code $AX_PARAM_PIDS}, waits for the child. */
  private static final String FORK_AND_HANG =
      """
      sleep 1000 &
      echo $! > "$AX_PARAM_PIDS/child.tmp" && mv "$AX_PARAM_PIDS/child.tmp" "$AX_PARAM_PIDS/child.pid"
      echo $$ > "$AX_PARAM_PIDS/script.tmp" && mv "$AX_PARAM_PIDS/script.tmp" "$AX_PARAM_PIDS/script.pid"
      wait
      """;

  /** A run of {@code script} told to write its pid files into {@link #outside} ($AX_PARAM_PIDS). */
  private ExecutionContext forkingContext(String script, Duration timeout) {
    return context(script, List.of(), Map.of("pids", outside.toString()), timeout);
  }

  /** The processes a {@link #FORK_AND_HANG} script started: itself and its forked child. */
  private record Tree(long script, long child) {
    boolean isGone() {
      return ShellTaskExecutorTest.isGone(script) && ShellTaskExecutorTest.isGone(child);
    }
  }

  /** Waits for the pid files of a {@link #FORK_AND_HANG} script, its own first. */
  private Tree awaitTree() throws IOException {
    long script = awaitPid(outside.resolve("script.pid"));
    return new Tree(script, awaitPid(outside.resolve("child.pid")));
  }

  // ---- runs ----

  @Test
  void exitZeroSucceedsAndItsOutputIsCaptured() throws Exception {
    script(scripts, "hello.sh", "echo hello; echo 'a warning' >&2; exit 0");

    assertThat(executor().execute(context("hello.sh")))
        .isEqualTo(ExecutionResult.ok("exit code 0\nstdout:\nhello\n\nstderr:\na warning\n"));
    ScriptRun run = ran(executor().run(context("hello.sh")));
    assertThat(run.exitCode()).isZero();
    assertThat(run.timedOut()).isFalse();
    assertThat(run.stdout().text()).isEqualTo("hello\n");
    assertThat(run.stderr().text()).isEqualTo("a warning\n");
    assertThat(run.stdout().truncated()).isFalse();
  }

  @Test
  void aNonZeroExitFailsWithTheExitCodeAndStderr() throws Exception {
    script(scripts, "bad.sh", "echo 'some progress'; echo \"bad input: $1\" >&2; exit 2");

    ExecutionResult result =
        executor().execute(context("bad.sh", List.of("x"), Map.of(), LONG_TIMEOUT));

    assertThat(result.succeeded()).isFalse();
    assertThat(result.retryable()).isTrue();
    assertThat(result.error()).isEqualTo("exit code 2: bad input: x");
    assertThat(result.output())
        .isEqualTo("exit code 2\nstdout:\nsome progress\n\nstderr:\nbad input: x\n");
  }

  @Test
  void aSecretParamThatWouldStraddleTheStdoutCutIsMaskedWholeFirst() throws Exception {
    // The secret starts 5 characters before the cut: cut first, its first 5 would be kept.
    script(
        scripts,
        "leak.sh",
        "head -c "
            + (ShellTaskExecutor.OUTPUT_SECTION_CHARS - 5)
            + " /dev/zero | tr '\\0' 'a'; printf '%s' \"$AX_PARAM_APITOKEN\"; echo more");

    ExecutionResult result =
        executor()
            .execute(
                context(
                    "leak.sh",
                    List.of(),
                    Map.of("apiToken", "s3cr3t-value-0123456789"),
                    LONG_TIMEOUT));

    assertThat(result.succeeded()).as(String.valueOf(result.error())).isTrue();
    assertThat(result.output()).doesNotContain("s3cr3").contains("a***");
  }

  @Test
  void theOutputKeepsTheStartOfALongStdoutAndSaysItWasCut() throws Exception {
    script(scripts, "long.sh", "head -c 100000 /dev/zero | tr '\\0' 'a'");

    ExecutionResult result = executor().execute(context("long.sh"));

    assertThat(result.succeeded()).isTrue();
    assertThat(result.output())
        .startsWith("exit code 0\nstdout:\naaaa")
        .endsWith("\n… (stdout cut)")
        .hasSizeLessThan(ShellTaskExecutor.OUTPUT_SECTION_CHARS + 100);
  }

  @Test
  void theErrorKeepsTheEndOfALongStderrOnOneBoundedLine() throws Exception {
    script(
        scripts,
        "noisy.sh",
        """
        i=0
        while [ $i -lt 2000 ]; do echo "debug line $i of noise" >&2; i=$((i + 1)); done
        echo 'fatal: disk full' >&2
        exit 3
        """);
    ShellTaskExecutor executor = new ShellTaskExecutor(scripts, 4096, Duration.ofSeconds(5));

    String error = executor.execute(context("noisy.sh")).error();

    assertThat(error)
        .startsWith("exit code 3: …")
        .endsWith("fatal: disk full")
        .doesNotContain("\n")
        .hasSizeLessThanOrEqualTo(
            "exit code 3: …".length() + ShellTaskExecutor.MAX_ERROR_EXCERPT_CHARS);
  }

  @Test
  void paramsAndAttemptDetailsArriveAsEnvironmentVariablesAndNothingElseDoes() throws Exception {
    script(scripts, "env.sh", "env");
    ExecutionContext context =
        context(
            "env.sh",
            List.of(),
            Map.of("db.url", "jdbc:mysql://db/ax", "token", "s3cr3t", "with space", "a b"),
            LONG_TIMEOUT);

    ScriptRun run = ran(executor().run(context));

    Map<String, String> env = new HashMap<>();
    for (String line : run.stdout().text().split("\n")) {
      int eq = line.indexOf('=');
      env.put(line.substring(0, eq), line.substring(eq + 1));
    }
    assertThat(env)
        .containsEntry("AX_PARAM_DB_URL", "jdbc:mysql://db/ax")
        .containsEntry("AX_PARAM_TOKEN", "s3cr3t")
        .containsEntry("AX_PARAM_WITH_SPACE", "a b")
        .containsEntry("AX_TASK_ID", "task-1")
        .containsEntry("AX_INSTANCE_ID", "task-1@1000")
        .containsEntry("AX_ATTEMPT", "2")
        .containsEntry("AX_TRACE_ID", "trace-1")
        .containsEntry("AX_TASK_TRACE_ID", "trace-1")
        .containsEntry("TRACEPARENT", context.traceparent())
        .containsEntry("AX_IDEMPOTENCY_KEY", "task-1@1000")
        .containsEntry("AX_DEADLINE_MS", Long.toString(context.deadline().toEpochMilli()))
        .containsEntry("PATH", "/usr/bin:/bin")
        .containsEntry("LANG", "C.UTF-8")
        // the working directory is the script directory
        .containsEntry("PWD", scripts.toRealPath().toString());
    // Nothing inherited from the dispatcher (its environment holds the database password); the
    // shell itself may add PWD, OLDPWD, SHLVL and _.
    assertThat(env.keySet())
        .allMatch(
            key ->
                key.startsWith("AX_")
                    || Set.of("PATH", "LANG", "TRACEPARENT", "PWD", "OLDPWD", "SHLVL", "_")
                        .contains(key),
            "only AX_*, PATH, LANG, TRACEPARENT and what the shell sets itself");
  }

  @Test
  void stdinIsEmpty() throws Exception {
    script(scripts, "stdin.sh", "cat; echo end");

    ScriptRun run = ran(executor().run(context("stdin.sh")));

    assertThat(run.stdout().text()).isEqualTo("end\n");
  }

  @Test
  void twoParamsThatBecomeTheSameVariableAreRefusedWithoutRunning() throws Exception {
    script(scripts, "env.sh", "touch '" + marker() + "'");

    ExecutionResult result =
        executor()
            .execute(
                context(
                    "env.sh",
                    List.of(),
                    Map.of("a-b", "secret-one", "a_b", "secret-two"),
                    LONG_TIMEOUT));

    assertThat(result.retryable()).isFalse();
    assertThat(result.error())
        .contains("'a-b'", "'a_b'", "AX_PARAM_A_B")
        .doesNotContain("secret-one", "secret-two");
    assertThat(marker()).doesNotExist();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "; touch MARKER",
        "$(touch MARKER)",
        "`touch MARKER`",
        "' \" ; touch MARKER #",
        "&& touch MARKER",
        "| touch MARKER",
        "> MARKER",
        "*",
        "line one\n touch MARKER",
        "$HOME ${PATH} \\$x %s"
      })
  void shellMetacharactersInAnArgumentArePassedLiterally(String template) throws Exception {
    String arg = template.replace("MARKER", marker().toString());
    Path out = outside.resolve("arg.out");
    script(scripts, "echo-arg.sh", "printf '%s' \"$1\" > \"$AX_PARAM_OUT\"; printf '%s' \"$#\"");

    ScriptRun run =
        ran(
            executor()
                .run(
                    context(
                        "echo-arg.sh", List.of(arg), Map.of("out", out.toString()), LONG_TIMEOUT)));

    assertThat(run.exitCode()).isZero();
    assertThat(run.stdout().text()).as("argument count").isEqualTo("1");
    assertThat(Files.readString(out)).isEqualTo(arg);
    assertThat(marker()).doesNotExist();
  }

  // ---- refused before anything starts ----

  @ParameterizedTest
  @ValueSource(
      strings = {
        "../OUTSIDE/evil.sh",
        "OUTSIDE_ABSOLUTE/evil.sh",
        "sub/../../OUTSIDE/evil.sh",
        "./evil.sh",
        "..",
        "..\\evil.sh",
        "evil.sh/"
      })
  void aPathInsteadOfAPlainNameIsRefusedWithoutRunningAnything(String template) throws Exception {
    script(outside, "evil.sh", "touch '" + marker() + "'");
    script(scripts, "evil.sh", "touch '" + marker() + "'");
    String name =
        template
            .replace("OUTSIDE_ABSOLUTE", outside.toString())
            .replace("OUTSIDE", outside.getFileName().toString());

    ExecutionResult result = executor().execute(context(name));

    assertThat(result.succeeded()).isFalse();
    assertThat(result.retryable()).isFalse();
    assertThat(result.error()).contains("not a path");
    assertThat(marker()).doesNotExist();
  }

  @Test
  void aSymlinkLeadingOutOfTheDirectoryIsRefused() throws Exception {
    Path evil = script(outside, "evil.sh", "touch '" + marker() + "'");
    Files.createSymbolicLink(scripts.resolve("link.sh"), evil);

    ExecutionResult result = executor().execute(context("link.sh"));

    assertThat(result.retryable()).isFalse();
    assertThat(result.error())
        .contains("'link.sh'", "outside the script directory")
        .doesNotContain(outside.toString());
    assertThat(marker()).doesNotExist();
  }

  @Test
  void aSymlinkToAScriptInTheDirectoryRuns() throws Exception {
    script(scripts, "real.sh", "echo real");
    Files.createSymbolicLink(scripts.resolve("alias.sh"), Path.of("real.sh"));

    assertThat(ran(executor().run(context("alias.sh"))).stdout().text()).isEqualTo("real\n");
  }

  @Test
  void aFileThatIsNotExecutableIsRefused() throws Exception {
    Path file = script(scripts, "plain.sh", "touch '" + marker() + "'");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

    ExecutionResult result = executor().execute(context("plain.sh"));

    assertThat(result.retryable()).isFalse();
    assertThat(result.error()).isEqualTo("script 'plain.sh' is not executable");
    assertThat(marker()).doesNotExist();
  }

  @Test
  void aMissingScriptOrADirectoryIsRefused() throws Exception {
    Files.createDirectory(scripts.resolve("sub.d"));

    assertThat(executor().execute(context("missing.sh")))
        .isEqualTo(
            ExecutionResult.permanentFailure(
                "script 'missing.sh' not found in the script directory"));
    assertThat(executor().execute(context("sub.d")))
        .isEqualTo(ExecutionResult.permanentFailure("script 'sub.d' is not a regular file"));
    assertThat(executor().execute(context(".")))
        .isEqualTo(ExecutionResult.permanentFailure("script '.' is not a regular file"));
  }

  @Test
  void anAlreadyInterruptedCallerStartsNothing() throws Exception {
    script(scripts, "touch.sh", "touch '" + marker() + "'");
    ShellTaskExecutor executor = executor();

    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> executor.execute(context("touch.sh")))
          .isInstanceOf(InterruptedException.class);
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(marker()).doesNotExist();
  }

  @Test
  void aDeadlineAlreadyPassedStartsNothing() throws Exception {
    script(scripts, "touch.sh", "touch '" + marker() + "'");

    ExecutionResult result =
        executor().execute(context("touch.sh", List.of(), Map.of(), Duration.ofMillis(-1)));

    assertThat(result.succeeded()).isFalse();
    assertThat(result.error()).contains("deadline passed before the script started");
    assertThat(marker()).doesNotExist();
  }

  // ---- time is up: the whole tree goes ----

  @Test
  void interruptingTheCallerKillsTheScriptAndTheChildItForked() throws Exception {
    script(scripts, "hang.sh", FORK_AND_HANG);
    ShellTaskExecutor executor = executor();
    ExecutionContext context = forkingContext("hang.sh", LONG_TIMEOUT);
    try (InterruptibleAttempt attempt = InterruptibleAttempt.start(executor, context)) {
      Tree tree = awaitTree();
      assertThat(isGone(tree.script())).isFalse();
      assertThat(isGone(tree.child())).isFalse();

      attempt.interrupt();

      assertThat(attempt.thrown(GENEROUS)).isInstanceOf(InterruptedException.class);
      assertThat(attempt.interruptFlagKept()).isTrue();
      await().atMost(GENEROUS).until(tree::isGone);
      await().atMost(GENEROUS).until(() -> !outputThreadsOf(tree.script()));
    }
  }

  @Test
  void passingTheDeadlineKillsTheTreeWithSigtermAndReportsATimeout() throws Exception {
    script(scripts, "hang.sh", FORK_AND_HANG);

    ScriptRun run = ran(executor().run(forkingContext("hang.sh", Duration.ofSeconds(2))));

    Tree tree = awaitTree();
    assertThat(run.timedOut()).isTrue();
    assertThat(run.exitCode()).as("128 + SIGTERM").isEqualTo(143);
    await().atMost(GENEROUS).until(tree::isGone);
    await().atMost(GENEROUS).until(() -> !outputThreadsOf(tree.script()));
  }

  @Test
  void aTreeThatIgnoresSigtermIsKilledAfterTheGrace() throws Exception {
    // An ignored signal stays ignored across fork and exec: the sleep ignores SIGTERM too.
    script(scripts, "stubborn.sh", "trap '' TERM\n" + FORK_AND_HANG);
    ShellTaskExecutor executor = new ShellTaskExecutor(scripts, 1024, Duration.ofMillis(500));

    ScriptRun run = ran(executor.run(forkingContext("stubborn.sh", Duration.ofSeconds(2))));

    Tree tree = awaitTree();
    assertThat(run.timedOut()).isTrue();
    assertThat(run.exitCode()).as("128 + SIGKILL").isEqualTo(137);
    await().atMost(GENEROUS).until(tree::isGone);
  }

  // ---- output ----

  @Test
  void outputBeyondTheBoundIsDroppedAndNeverBlocksTheScript() throws Exception {
    script(
        scripts,
        "flood.sh",
        """
        head -c 5242880 /dev/zero | tr '\\0' x
        head -c 5242880 /dev/zero | tr '\\0' y >&2
        printf 'the end' >&2
        """);
    ShellTaskExecutor executor = new ShellTaskExecutor(scripts, 1024, Duration.ofSeconds(5));

    ScriptRun run = ran(executor.run(context("flood.sh")));

    assertThat(run.timedOut()).isFalse();
    assertThat(run.exitCode()).isZero();
    assertThat(run.stdout().totalBytes()).isEqualTo(5_242_880);
    assertThat(run.stdout().truncated()).isTrue();
    assertThat(run.stdout().text()).isEqualTo("x".repeat(1024));
    assertThat(run.stderr().totalBytes()).isEqualTo(5_242_880 + "the end".length());
    assertThat(run.stderr().text()).hasSize(1024).startsWith("yyy").endsWith("yythe end");
  }

  @Test
  void aScriptThatExitsLeavingABackgroundChildOnItsOutputIsNotWaitedForForever() throws Exception {
    script(
        scripts,
        "leave.sh",
        """
        sleep 1000 &
        echo $! > "$AX_PARAM_PIDS/child.tmp" && mv "$AX_PARAM_PIDS/child.tmp" "$AX_PARAM_PIDS/child.pid"
        echo done
        exit 0
        """);

    ScriptRun run = ran(executor().run(forkingContext("leave.sh", LONG_TIMEOUT)));

    awaitPid(outside.resolve("child.pid")); // killed after the test
    assertThat(run.exitCode()).isZero();
    assertThat(run.timedOut()).isFalse();
    assertThat(run.stdout().text()).isEqualTo("done\n");
  }

  // ---- secrets ----

  @Test
  void neitherParamsNorArgumentsNorOutputAreLogged() throws Exception {
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("dev.ax.dispatcher.executor");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    Level level = logger.getLevel();
    logger.setLevel(Level.DEBUG);
    logger.addAppender(appender);
    try {
      script(
          scripts,
          "leak.sh",
          "echo \"$AX_PARAM_TOKEN $1\"; echo \"$AX_PARAM_TOKEN\" >&2\n" + FORK_AND_HANG);
      executor()
          .execute(
              context(
                  "leak.sh",
                  List.of("arg-secret"),
                  Map.of("token", "param-secret", "pids", outside.toString()),
                  Duration.ofSeconds(2)));
      awaitTree();
    } finally {
      logger.detachAppender(appender);
      logger.setLevel(level);
    }
    assertThat(appender.list).isNotEmpty(); // the kill was logged at DEBUG
    assertThat(appender.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .noneMatch(m -> m.contains("param-secret") || m.contains("arg-secret"));
  }

  // ---- configuration ----

  @Test
  void isOffUnlessADirectoryIsConfigured() {
    SystemClock clock = new SystemClock();
    Duration grace = ShellTaskExecutor.DEFAULT_KILL_GRACE;
    int max = ShellTaskExecutor.DEFAULT_MAX_OUTPUT_BYTES;

    assertThat(ShellTaskExecutor.ifConfigured(null, max, grace, clock)).isEmpty();
    assertThat(ShellTaskExecutor.ifConfigured(" ", max, grace, clock)).isEmpty();
    assertThat(ShellTaskExecutor.ifConfigured(scripts.toString(), max, grace, clock))
        .hasValueSatisfying(e -> assertThat(e.name()).isEqualTo("shell"));
  }

  @Test
  void badSettingsAreRefusedAtConstruction() throws Exception {
    Path file = Files.writeString(outside.resolve("file"), "x");
    Duration grace = Duration.ofSeconds(1);

    assertThatThrownBy(() -> new ShellTaskExecutor(outside.resolve("missing"), 1, grace))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not exist");
    assertThatThrownBy(() -> new ShellTaskExecutor(file, 1, grace))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a directory");
    assertThatThrownBy(() -> new ShellTaskExecutor(scripts, -1, grace))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> new ShellTaskExecutor(scripts, 1, Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT-1S");
  }
}
