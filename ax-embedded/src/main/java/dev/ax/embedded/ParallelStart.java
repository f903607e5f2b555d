package dev.ax.embedded;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * Starts two servers at the same time: the first on a new thread, the second on the caller's. If
 * either fails, the one that did start is closed and the failure rethrown. Thread-safe (stateless).
 */
final class ParallelStart {

  private ParallelStart() {}

  /** Both started servers; either may be null when its supplier returned null. */
  record Both<A extends AutoCloseable, B extends AutoCloseable>(A first, B second) {}

  /**
   * Runs both suppliers concurrently and returns both results.
   *
   * @throws RuntimeException the first supplier's failure, or else the second's, with any other
   *     failure added as suppressed
   */
  static <A extends AutoCloseable, B extends AutoCloseable> Both<A, B> start(
      String firstName, Supplier<A> first, Supplier<B> second) {
    CompletableFuture<A> firstFuture =
        CompletableFuture.supplyAsync(
            first, task -> new Thread(task, "ax-embedded-start-" + firstName).start());
    B secondResult;
    try {
      secondResult = second.get();
    } catch (RuntimeException | Error e) {
      closeQuietly(join(firstFuture, e));
      throw e;
    }
    A firstResult;
    try {
      firstResult = firstFuture.join();
    } catch (CompletionException e) {
      RuntimeException failure = unwrap(e);
      closeQuietly(secondResult, failure);
      throw failure;
    }
    return new Both<>(firstResult, secondResult);
  }

  /** Waits for {@code future}; returns its value, or null after adding its failure to another. */
  private static <A> A join(CompletableFuture<A> future, Throwable primary) {
    try {
      return future.join();
    } catch (CompletionException e) {
      primary.addSuppressed(e.getCause());
      return null;
    }
  }

  private static RuntimeException unwrap(CompletionException e) {
    Throwable cause = e.getCause();
    if (cause instanceof RuntimeException runtime) {
      return runtime;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return e;
  }

  private static void closeQuietly(AutoCloseable closeable) {
    closeQuietly(closeable, null);
  }

  private static void closeQuietly(AutoCloseable closeable, Throwable primary) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      if (primary != null) {
        primary.addSuppressed(e);
      }
    }
  }
}
