package dev.ax.ticker.fire;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.StoreException;
import dev.ax.common.store.StoredTask;
import dev.ax.ticker.fire.FiringStore.FireResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** A {@link TickerPort} over maps, for unit tests of the tick loop's logic. Not thread-safe. */
public final class InMemoryTickerPort implements TickerPort {

  public record Emitted(String instanceId, long dueAtMs, long emittedAtMs, long epoch) {}

  final Map<Long, DueInstance> rows = new LinkedHashMap<>();
  final Map<Long, InstanceStatus> status = new HashMap<>();
  public final Map<String, StoredTask> tasks = new HashMap<>();
  public final List<Emitted> emitted = new ArrayList<>();

  /** The instances each firing was asked to move, in order. */
  final List<Integer> firingSizes = new ArrayList<>();

  boolean failNextFire;
  private long nextSeq = 1;

  public long add(String taskId, long slotMs, long dueAtMs) {
    long seq = nextSeq++;
    rows.put(seq, new DueInstance(taskId + "@" + slotMs, taskId, dueAtMs, "trace", seq, 1));
    status.put(seq, InstanceStatus.SCHEDULED);
    return seq;
  }

  WheelEntry entry(long seq) {
    return new WheelEntry(seq, rows.get(seq).dueAtMs(), "g");
  }

  @Override
  public List<DueInstance> scheduledBySeq(Collection<Long> seqs) {
    return seqs.stream()
        .filter(s -> status.get(s) == InstanceStatus.SCHEDULED)
        .map(rows::get)
        .sorted(Comparator.comparingLong(DueInstance::dueAtMs))
        .toList();
  }

  @Override
  public Map<String, StoredTask> tasksOf(Collection<DueInstance> due) {
    return due.stream()
        .map(DueInstance::taskId)
        .distinct()
        .filter(tasks::containsKey)
        .collect(Collectors.toMap(id -> id, tasks::get));
  }

  @Override
  public Set<String> inFlight(Collection<String> taskIds) {
    return Set.of();
  }

  @Override
  public FireResult fire(FirePlan plan, LeaseFence fence, long nowMs) {
    if (failNextFire) {
      failNextFire = false;
      throw new StoreException("database away", null);
    }
    firingSizes.add(
        plan.dispatch().size() + plan.skip().values().stream().mapToInt(List::size).sum());
    List<DueInstance> dispatched = move(plan.dispatch(), InstanceStatus.DISPATCHED);
    List<DueInstance> skipped = new ArrayList<>();
    plan.skip().values().forEach(seqs -> skipped.addAll(move(seqs, InstanceStatus.SKIPPED)));
    Map<String, Long> created = new HashMap<>();
    List<DueInstance> moved = new ArrayList<>(dispatched);
    moved.addAll(skipped);
    for (DueInstance row : moved) {
      for (NewInstance successor : plan.successorsOf(row.instanceId())) {
        boolean exists =
            rows.values().stream().anyMatch(r -> r.instanceId().equals(successor.instanceId()));
        if (!exists) {
          long seq = nextSeq++;
          rows.put(
              seq,
              new DueInstance(
                  successor.instanceId(),
                  successor.taskId(),
                  successor.dueAtMs(),
                  "trace",
                  seq,
                  1));
          status.put(seq, InstanceStatus.SCHEDULED);
          created.put(successor.instanceId(), seq);
        }
      }
    }
    return new FireResult(dispatched, skipped, created);
  }

  private List<DueInstance> move(List<Long> seqs, InstanceStatus to) {
    List<DueInstance> moved = new ArrayList<>();
    for (Long seq : seqs) {
      if (status.get(seq) == InstanceStatus.SCHEDULED) {
        status.put(seq, to);
        moved.add(rows.get(seq));
      }
    }
    return moved;
  }

  @Override
  public void emitDue(
      List<DueInstance> dispatched, long epoch, long nowMs, Map<String, String> groupByTask) {
    for (DueInstance instance : dispatched) {
      emitted.add(new Emitted(instance.instanceId(), instance.dueAtMs(), nowMs, epoch));
    }
  }
}
