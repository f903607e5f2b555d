package dev.ax.common.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.ExecutorType;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The stored JSON of each executor record, byte for byte: {@code type} first, then the fields of
 * its type only, in a fixed order (task rows and their versions hold this text, and older readers
 * read it back).
 */
class ExecutorJsonTest {

  @Test
  void httpWritesUrlMethodHeadersAndBody() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("X-A", "1");
    ExecutorSpec http =
        ExecutorSpec.http(URI.create("https://example.com/hook"), "PUT", headers, "{\"k\":1}");
    assertThat(AxJson.writeString(ExecutorJson.write(http)))
        .isEqualTo(
            "{\"type\":\"HTTP\",\"url\":\"https://example.com/hook\",\"method\":\"PUT\","
                + "\"headers\":{\"X-A\":\"1\"},\"body\":\"{\\\"k\\\":1}\"}");
  }

  @Test
  void httpLeavesOutEmptyHeadersAndANullBody() {
    ExecutorSpec http = ExecutorSpec.http(URI.create("https://h/x"), "POST", null, null);
    assertThat(AxJson.writeString(ExecutorJson.write(http)))
        .isEqualTo("{\"type\":\"HTTP\",\"url\":\"https://h/x\",\"method\":\"POST\"}");
  }

  @Test
  void httpWritesItsOutputHeadersLastAndReadsThemBack() {
    ExecutorSpec http =
        new ExecutorSpec.Http(
            URI.create("https://h/x"), "POST", null, null, List.of("X-Request-Id", "Retry-After"));
    String json = AxJson.writeString(ExecutorJson.write(http));

    assertThat(json)
        .isEqualTo(
            "{\"type\":\"HTTP\",\"url\":\"https://h/x\",\"method\":\"POST\","
                + "\"outputHeaders\":[\"X-Request-Id\",\"Retry-After\"]}");
    assertThat(
            ExecutorJson.read(
                AxJson.MAPPER.valueToTree(ExecutorJson.write(http)), IntakeCheck.STORED))
        .isEqualTo(http);
  }

  @Test
  void inProcessWritesItsHandler() {
    assertThat(AxJson.writeString(ExecutorJson.write(ExecutorSpec.inProcess("noop"))))
        .isEqualTo("{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}");
  }

  @Test
  void shellWritesItsScriptAndArgsEvenWhenNone() {
    assertThat(
            AxJson.writeString(ExecutorJson.write(ExecutorSpec.shell("a.sh", List.of("x", "y")))))
        .isEqualTo("{\"type\":\"SHELL\",\"script\":\"a.sh\",\"args\":[\"x\",\"y\"]}");
    assertThat(AxJson.writeString(ExecutorJson.write(ExecutorSpec.shell("a.sh", null))))
        .isEqualTo("{\"type\":\"SHELL\",\"script\":\"a.sh\",\"args\":[]}");
  }

  @Test
  void eachRecordNamesItsType() {
    assertThat(ExecutorSpec.inProcess("h").type()).isEqualTo(ExecutorType.IN_PROCESS);
    assertThat(ExecutorSpec.shell("s", List.of()).type()).isEqualTo(ExecutorType.SHELL);
    assertThat(ExecutorSpec.http(URI.create("http://h"), "GET", Map.of(), null).type())
        .isEqualTo(ExecutorType.HTTP);
  }
}
