package dev.ax.api.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrometheusTextTest {

  @Test
  void samplesWithAndWithoutLabelsAreReadAndTheRestPassedOver() {
    String text =
        String.join(
            "\n",
            "# HELP ax_dispatcher_succeeded_total attempts recorded SUCCESS",
            "# TYPE ax_dispatcher_succeeded_total counter",
            "ax_dispatcher_succeeded_total 1234.0",
            "ax_backlog_instances{status=\"RUNNING\"} 7.0",
            "ax_dispatcher_start_lateness_ms_bucket{le=\"+Inf\",pool=\"a \\\"b\\\"\"} 9",
            "ax_ticker_epoch NaN",
            "jvm_memory_used_bytes{area=\"heap\"} 5.0",
            "ax_broken{status=\"RUNNING\" 1",
            "ax_no_value",
            "");
    List<PrometheusText.Sample> samples = PrometheusText.parse(text, "ax_");
    assertThat(samples)
        .extracting(PrometheusText.Sample::name)
        .containsExactly(
            "ax_dispatcher_succeeded_total",
            "ax_backlog_instances",
            "ax_dispatcher_start_lateness_ms_bucket",
            "ax_ticker_epoch");
    assertThat(samples.get(0).value()).isEqualTo(1234.0);
    assertThat(samples.get(1).labels()).isEqualTo(Map.of("status", "RUNNING"));
    assertThat(samples.get(2).labels())
        .containsEntry("le", "+Inf")
        .containsEntry("pool", "a \"b\"");
    assertThat(samples.get(3).value()).isNaN();
  }
}
