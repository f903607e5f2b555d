package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DependencyGraphTest {

  /** a waits for nothing; b waits for a; c waits for b. */
  private final Map<String, List<String>> edges =
      Map.of("b", List.of("a"), "c", List.of("b"), "d", List.of("a", "c"));

  private Map<String, List<String>> lookup(Collection<String> tasks) {
    Map<String, List<String>> found = new HashMap<>();
    for (String task : tasks) {
      if (edges.containsKey(task)) {
        found.put(task, edges.get(task));
      }
    }
    return found;
  }

  @Test
  void aNewTaskWaitingForExistingTasksClosesNoCycle() {
    assertThat(DependencyGraph.cycleThrough("e", List.of("c", "d"), this::lookup)).isEmpty();
  }

  @Test
  void aTaskWaitingForItselfIsACycle() {
    assertThat(DependencyGraph.cycleThrough("e", List.of("a", "e"), this::lookup))
        .contains(List.of("e", "e"));
  }

  @Test
  void aTaskWaitingForOneThatWaitsForItIsACycleAndThePathIsNamed() {
    // Re-declaring a to wait for c: a <- b <- c <- a.
    assertThat(DependencyGraph.cycleThrough("a", List.of("c"), this::lookup))
        .contains(List.of("a", "c", "b", "a"));
  }
}
