package dev.ax.dispatcher.executor.shell;

import dev.ax.common.time.Clock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Ends a process and every process it started.
 *
 * <h2>How</h2>
 *
 * <ol>
 *   <li><b>Snapshot</b> the tree: the root and {@link ProcessHandle#descendants()}, taken before
 *       any signal, because a child whose parent dies is re-parented (to init or a subreaper) and
 *       no longer shows up as a descendant of anything we know.
 *   <li><b>SIGTERM</b> ({@link ProcessHandle#destroy()}) every process in the snapshot, the root
 *       first so it stops starting new children and its {@code trap} handlers can clean up.
 *   <li><b>Wait</b> up to the grace for all of them to be gone.
 *   <li><b>Snapshot again</b> from the survivors (they may have forked since), and <b>SIGKILL</b>
 *       ({@link ProcessHandle#destroyForcibly()}) the survivors and those new descendants.
 *   <li><b>Wait</b> up to {@link #FORCED_EXIT_WAIT} for the kernel to tear them down, and report
 *       how many are still there (normally none).
 * </ol>
 *
 * <p>The root is signalled through its {@link ProcessHandle}, not {@link Process#destroy()}, which
 * would also close our ends of its pipes and lose the output still in them.
 *
 * <h2>"Gone"</h2>
 *
 * A process is gone when it is not alive or is a zombie. The JDK counts an exited but unreaped
 * process (a zombie) as alive, and zombies are common here: a killed grandchild is re-parented to
 * PID 1, and many container inits (and a JVM running as PID 1) never reap it. A zombie runs nothing
 * and holds nothing but its PID, so on Linux we read its state from {@code /proc/<pid>/stat};
 * elsewhere we go by {@link ProcessHandle#isAlive()}. The JDK also cannot tell us when a process
 * that is not our child exits, so the wait wakes on the exit futures and otherwise re-checks every
 * {@link #POLL_INTERVAL}.
 *
 * <h2>Limits</h2>
 *
 * A snapshot is a snapshot: a process that leaves the tree before it (a daemon that double-forks
 * and re-parents itself) or is forked by a process between the second snapshot and its SIGKILL is
 * not seen. Containment beyond that needs the OS: run the dispatcher in its own container or
 * cgroup.
 *
 * <h2>Threads</h2>
 *
 * Stateless apart from the clock; thread-safe. {@link #kill} waits at most {@code grace + }{@link
 * #FORCED_EXIT_WAIT} and keeps going if interrupted (stopping half-way would leave processes
 * behind); it restores the interrupt flag before it returns.
 */
public final class ProcessTree {

  /** How long after SIGKILL we wait for the tree to disappear; SIGKILL cannot be ignored. */
  public static final Duration FORCED_EXIT_WAIT = Duration.ofSeconds(2);

  /** How often the wait re-checks processes the JDK cannot notify us about. */
  static final Duration POLL_INTERVAL = Duration.ofMillis(50);

  private final Clock clock;

  public ProcessTree(Clock clock) {
    this.clock = clock;
  }

  /**
   * What a kill did.
   *
   * @param terminated processes sent SIGTERM (the root and its descendants at the time)
   * @param forced processes sent SIGKILL because they outlived the grace
   * @param survivors processes still there after SIGKILL and {@link #FORCED_EXIT_WAIT}
   */
  public record Kill(int terminated, int forced, int survivors) {}

  /** SIGTERM to the tree, SIGKILL after {@code grace} to whatever is left. */
  public Kill kill(ProcessHandle root, Duration grace) {
    List<ProcessHandle> tree = snapshot(List.of(root));
    tree.forEach(ProcessHandle::destroy);
    if (awaitGone(tree, grace)) {
      return new Kill(tree.size(), 0, 0);
    }
    List<ProcessHandle> left = snapshot(running(tree));
    left.forEach(ProcessHandle::destroyForcibly);
    awaitGone(left, FORCED_EXIT_WAIT);
    return new Kill(tree.size(), left.size(), running(left).size());
  }

  /** {@code roots} that are running, each followed by its descendants; no duplicates. */
  private static List<ProcessHandle> snapshot(List<ProcessHandle> roots) {
    Set<ProcessHandle> found = new LinkedHashSet<>();
    for (ProcessHandle root : roots) {
      if (isRunning(root)) {
        found.add(root);
        root.descendants().forEach(found::add);
      }
    }
    return new ArrayList<>(found);
  }

  private static List<ProcessHandle> running(List<ProcessHandle> handles) {
    return handles.stream().filter(ProcessTree::isRunning).toList();
  }

  /**
   * Waits up to {@code timeout} until every handle is gone, ignoring interrupts (which it restores
   * before returning).
   *
   * @return true if all are gone
   */
  private boolean awaitGone(List<ProcessHandle> handles, Duration timeout) {
    CompletableFuture<?> allExited =
        CompletableFuture.allOf(
            handles.stream().map(ProcessHandle::onExit).toArray(CompletableFuture<?>[]::new));
    long deadlineMs = clock.millis() + timeout.toMillis();
    boolean interrupted = false;
    try {
      while (true) {
        if (running(handles).isEmpty()) {
          return true;
        }
        long leftMs = deadlineMs - clock.millis();
        if (leftMs <= 0) {
          return false;
        }
        try {
          allExited.get(Math.min(leftMs, POLL_INTERVAL.toMillis()), TimeUnit.MILLISECONDS);
          return true;
        } catch (TimeoutException | ExecutionException e) {
          // A zombie never completes onExit: look again.
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Alive and not a zombie. */
  static boolean isRunning(ProcessHandle handle) {
    return handle.isAlive() && !isZombie(handle.pid());
  }

  private static boolean isZombie(long pid) {
    try {
      // /proc/<pid>/stat: "pid (comm) S ...": the state follows the last ')', as comm may hold one.
      String stat =
          Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
      int close = stat.lastIndexOf(')');
      return close >= 0 && close + 2 < stat.length() && stat.charAt(close + 2) == 'Z';
    } catch (IOException | RuntimeException e) {
      return false; // no /proc (not Linux) or the process is gone: isAlive() decides
    }
  }
}
