package dev.ax.dispatcher.executor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import dev.ax.spi.TaskExecutor;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Closing the registry closes the built-in executors that hold resources, and only those. */
class ExecutorRegistryTest {

  /** An executor with a resource to close, counting its closes. */
  private static final class Closing implements TaskExecutor, AutoCloseable {
    final AtomicInteger closed = new AtomicInteger();
    private final String name;

    Closing(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public ExecutionResult execute(ExecutionContext context) {
      return ExecutionResult.ok();
    }

    @Override
    public void close() {
      closed.incrementAndGet();
    }
  }

  @Test
  void closeClosesTheHttpAndShellExecutorsButNotInProcessOnes() {
    Closing http = new Closing("http");
    Closing shell = new Closing("shell");
    Closing inProcess = new Closing("mine");

    new ExecutorRegistry(http, Optional.of(shell), Map.of("mine", inProcess)).close();

    assertThat(http.closed).hasValue(1);
    assertThat(shell.closed).hasValue(1);
    assertThat(inProcess.closed).as("an in-process executor is its author's").hasValue(0);
  }

  @Test
  void closingTheRealHttpExecutorTwiceIsHarmless() {
    HttpTaskExecutor http =
        new HttpTaskExecutor(new HostAllowList(java.util.List.of("127.0.0.1")), 100);
    ExecutorRegistry registry = new ExecutorRegistry(http, Map.of());

    registry.close();
    registry.close();
  }
}
