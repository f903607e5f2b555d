package dev.ax.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Memory of the processes a soak watches: this JVM's heap just after its latest collection (the GC
 * MXBeans' last {@code GcInfo}), and a process's resident set ({@code VmRSS} in {@code
 * /proc/<pid>/status}). Stateless; -1 where the platform does not say.
 */
final class ProcessMemory {

  private ProcessMemory() {}

  /**
   * The heap in use right after this JVM's most recent collection, in bytes: what survives, the
   * figure that grows when something leaks; -1 before the first collection or without the HotSpot
   * MXBeans.
   */
  static long heapAfterLastGcBytes() {
    Set<String> heapPools = new HashSet<>();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        heapPools.add(pool.getName());
      }
    }
    com.sun.management.GcInfo latest = null;
    for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (bean instanceof com.sun.management.GarbageCollectorMXBean hotspot) {
        com.sun.management.GcInfo info = hotspot.getLastGcInfo();
        if (info != null && (latest == null || info.getEndTime() > latest.getEndTime())) {
          latest = info;
        }
      }
    }
    if (latest == null) {
      return -1;
    }
    long bytes = 0;
    for (Map.Entry<String, MemoryUsage> pool : latest.getMemoryUsageAfterGc().entrySet()) {
      if (heapPools.contains(pool.getKey())) {
        bytes += pool.getValue().getUsed();
      }
    }
    return bytes;
  }

  /**
   * The heap that survives a full collection of this JVM, asked for now ({@code System.gc()}): the
   * live data, the figure that grows when something leaks. A stop-the-world pause of this JVM.
   */
  static long liveHeapBytes() {
    System.gc();
    return heapAfterLastGcBytes();
  }

  /** The resident set of {@code pid} in bytes, from {@code /proc}; -1 if it cannot be read. */
  static long rssBytes(long pid) {
    try {
      return parseVmRssBytes(
          Files.readAllLines(
              Path.of("/proc", Long.toString(pid), "status"), StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** The summed resident sets of {@code processes}; -1 if one cannot be read. */
  static long rssBytes(List<ProcessHandle> processes) {
    long total = 0;
    for (ProcessHandle process : processes) {
      long rss = rssBytes(process.pid());
      if (rss < 0) {
        return -1;
      }
      total += rss;
    }
    return total;
  }

  /** {@code VmRSS: 123456 kB} among the lines of a {@code status} file, in bytes; -1 if none. */
  static long parseVmRssBytes(List<String> statusLines) {
    for (String line : statusLines) {
      if (line.startsWith("VmRSS:")) {
        String[] fields = line.substring("VmRSS:".length()).trim().split("\\s+");
        long value = Long.parseLong(fields[0]);
        return fields.length > 1 && fields[1].equalsIgnoreCase("kB") ? value * 1024 : value;
      }
    }
    return -1;
  }
}
