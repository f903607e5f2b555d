package dev.ax.dispatcher.claim;

import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskSpecCache;
import dev.ax.common.store.TaskStore;
import dev.ax.common.thread.DaemonThreads;
import dev.ax.dispatcher.store.ClaimedInstance;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task specs the dispatcher runs, cached by (task id, version): the hot path does not read
 * static data again, and an updated task has a new version, so it never runs with a stale spec.
 *
 * <p>A task seen for the first time (every one-shot task is) costs a read. {@link #prefetch} starts
 * that read on its own thread from the due events, before the claim, so the claim's round trips and
 * the spec read overlap instead of adding up; {@link #of} waits for it and reads whatever is still
 * missing (a version newer than the one prefetched, a failed prefetch) itself.
 *
 * <p>Thread-safety: every method may be called from any thread.
 */
public final class TaskSpecs implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(TaskSpecs.class);
  private static final Duration PREFETCH_WAIT = Duration.ofSeconds(10);
  private static final int MAX_CACHED = 100_000;

  private final TaskSpecCache cache;
  private final ExecutorService reader =
      Executors.newSingleThreadExecutor(DaemonThreads.named("ax-dispatcher-specs"));

  /**
   * @param maxBytes the most the cached specs weigh ({@code AX_SPEC_CACHE_MAX_BYTES})
   */
  public TaskSpecs(TaskStore tasks, long maxBytes) {
    this.cache = new TaskSpecCache(tasks, MAX_CACHED, maxBytes);
  }

  /** Starts reading the specs of those of {@code taskIds} never read before; returns at once. */
  Future<?> prefetch(Collection<String> taskIds) {
    Set<String> unseen = cache.unseen(taskIds);
    if (unseen.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return reader.submit(() -> cache.read(unseen));
  }

  /** Caches {@code task}, read by someone else (the intake, for its group). */
  public void put(StoredTask task) {
    cache.put(task);
  }

  /**
   * The spec version each claimed instance was fired with, by {@link #keyOf}; an instance whose
   * task is gone has no entry.
   *
   * @param prefetch what {@link #prefetch} returned for these instances' events
   */
  Map<String, StoredTask> of(List<ClaimedInstance> claimed, Future<?> prefetch) {
    awaitQuietly(prefetch);
    return cache.exact(claimed, ClaimedInstance::taskId, ClaimedInstance::taskVersion);
  }

  /** The key of {@code instance}'s spec in {@link #of}'s answer. */
  static String keyOf(ClaimedInstance instance) {
    return TaskSpecCache.key(instance.taskId(), instance.taskVersion());
  }

  /** Forgets the specs of one-shot tasks whose runs have started (see {@link TaskSpecCache}). */
  void doneWith(Collection<StoredTask> started) {
    cache.forgetOneShot(started);
  }

  private static void awaitQuietly(Future<?> prefetch) {
    try {
      prefetch.get(PREFETCH_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // The synchronous read in of() gets what the prefetch did not.
      log.debug("Spec prefetch failed: {}", e.toString());
    }
  }

  @Override
  public void close() {
    reader.shutdownNow();
  }
}
