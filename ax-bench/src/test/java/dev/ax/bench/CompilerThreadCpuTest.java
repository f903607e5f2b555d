package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompilerThreadCpuTest {

  @Test
  void readsUserAndSystemTicksAfterACommandWithSpaces() {
    String stat =
        "4242 (C2 CompilerThre) S 1 4200 4200 0 -1 1077936192 12 0 0 0 250 17 0 0 20 0 30 0 9 0";
    assertThat(CompilerThreadCpu.cpuTicks(stat)).isEqualTo(267);
  }

  @Test
  void aLineThatIsNotAStatLineCountsNothing() {
    assertThat(CompilerThreadCpu.cpuTicks("garbage")).isZero();
    assertThat(CompilerThreadCpu.cpuTicks("1 (x) S 1 2")).isZero();
    assertThat(CompilerThreadCpu.cpuTicks("1 (x) S 1 2 3 4 5 6 7 8 9 10 user system")).isZero();
  }

  @Test
  void knowsTheHotSpotCompilerThreads() {
    assertThat(CompilerThreadCpu.isCompiler("C1 CompilerThre")).isTrue();
    assertThat(CompilerThreadCpu.isCompiler("C2 CompilerThre")).isTrue();
    assertThat(CompilerThreadCpu.isCompiler("GC Thread#0")).isFalse();
    assertThat(CompilerThreadCpu.isCompiler("ax-ticker")).isFalse();
  }

  @Test
  void countsTheCompilerThreadsOfARunningJvm() {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux's /proc");
    // This JVM has compiled the test framework by now: its compilers have used CPU.
    assertThat(CompilerThreadCpu.ms(List.of(ProcessHandle.current()))).isPositive();
  }
}
