package dev.ax.bench;

import dev.ax.cli.local.Pipeline;
import dev.ax.common.stage.StageContext;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;

/**
 * The stages a bench measures: in this JVM ({@link #inThisJvm}) or each in a JVM of its own ({@link
 * StageProcesses}). Either way the bench reads the clock and the database through {@link
 * #context()}. Not thread-safe: used by the bench's main thread.
 */
interface BenchStages extends AutoCloseable {

  /** This JVM's context: the clock, the database pool, the meters. */
  StageContext context();

  /** The stages' JVMs other than this one: their CPU and JIT time count as AX's. */
  List<ProcessHandle> processes();

  /** The ticker's mark and the dispatcher's claim, counted so far wherever the stages run. */
  TransactionTimes transactionTimes();

  /**
   * The ticker's meters in Prometheus text, as its {@code /metrics} serves them (in this JVM: every
   * stage's, one registry); empty when it does not answer.
   */
  String tickerMetrics();

  /** How the stages run, for the bench's first line. */
  String description();

  @Override
  void close();

  /** Every stage in this JVM, as {@link Pipeline} starts them. */
  static BenchStages inThisJvm(Pipeline pipeline, int dispatchers) {
    return new BenchStages() {
      @Override
      public StageContext context() {
        return pipeline.context();
      }

      @Override
      public List<ProcessHandle> processes() {
        return List.of();
      }

      @Override
      public TransactionTimes transactionTimes() {
        return TransactionTimes.snapshot(pipeline.context().meters());
      }

      @Override
      public String tickerMetrics() {
        return pipeline.context().meters() instanceof PrometheusMeterRegistry prometheus
            ? prometheus.scrape()
            : "";
      }

      @Override
      public String description() {
        return "every stage in this JVM, " + dispatchers + " dispatcher(s)";
      }

      @Override
      public void close() {
        pipeline.close();
      }
    };
  }
}
