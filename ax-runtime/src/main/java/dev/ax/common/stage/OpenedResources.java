package dev.ax.common.stage;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a process or a stage has opened so far, closed in the reverse order: on a failure half-way
 * through opening, and at the end of a run, by one path. A failure to close one resource is logged
 * and the others are still closed. Closing again closes nothing.
 *
 * <p>Not thread-safe: the thread that opens owns it; an owner that registers everything in its
 * constructor may be closed from another thread (a shutdown hook).
 */
public final class OpenedResources implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OpenedResources.class);

  private final Deque<AutoCloseable> opened = new ArrayDeque<>();

  /** Registers {@code resource} (null is ignored) and returns it. */
  public <T extends AutoCloseable> T add(T resource) {
    if (resource != null) {
      opened.push(resource);
    }
    return resource;
  }

  @Override
  public void close() {
    while (!opened.isEmpty()) {
      AutoCloseable resource = opened.pop();
      try {
        resource.close();
      } catch (Exception e) {
        log.warn("Failed to close {}", resource.getClass().getSimpleName(), e);
      }
    }
  }
}
