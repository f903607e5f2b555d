package dev.ax.dispatcher.executor.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.testing.ExternalTool;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SystemClock;
import dev.ax.dispatcher.executor.AttemptContext;
import dev.ax.dispatcher.executor.HostAllowList;
import dev.ax.dispatcher.executor.HttpTaskExecutor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A signed HTTP task call, checked as a receiver would check it: with the Python and the Node
 * verifier exactly as docs/SECURITY.md prints them (each where its interpreter is installed), and
 * against a tampered body and another secret, which must fail.
 */
class SignedCallTest {

  private static final String SECRET = "0123456789abcdef0123456789abcdef-test-secret";
  private static final Path SECURITY_DOC = Path.of("..", "docs", "SECURITY.md");

  /** What the receiver saw. */
  private record Call(String timestamp, String key, String signature, byte[] body) {}

  @Test
  void aSignedCallVerifiesWithTheDocumentedVerifiersAndATamperedOneDoesNot() throws Exception {
    Call call = signedCall("{\"rows\":[1,2,3],\"note\":\"héllo\"}");
    assertThat(call.signature()).matches("v1=[0-9a-f]{64}");
    assertThat(
            new CallSigner(SECRET)
                .signature(Long.parseLong(call.timestamp()), call.key(), call.body()))
        .isEqualTo(call.signature());

    assumeTrue(
        Files.isReadable(SECURITY_DOC),
        "SignedCallTest: docs/SECURITY.md not found beside the module");
    String doc = Files.readString(SECURITY_DOC);
    List<String> verdicts = new ArrayList<>();
    String python = block(doc, "python");
    if (ExternalTool.onPath("python3").isPresent()) {
      String driver =
          python
              + "\nimport os, sys\n"
              + "body = open(os.environ['BODY_FILE'], 'rb').read()\n"
              + "print(verify(os.environ['SECRET'].encode(), os.environ['TS'], os.environ['KEY'],"
              + " body, os.environ['SIG']))\n";
      verdicts.add("python " + run(List.of("python3", "-c", driver), call, SECRET));
      verdicts.add(
          "python-tampered " + run(List.of("python3", "-c", driver), tampered(call), SECRET));
      verdicts.add(
          "python-other-secret " + run(List.of("python3", "-c", driver), call, SECRET + "x"));
    }
    String node = block(doc, "javascript");
    if (ExternalTool.onPath("node").isPresent()) {
      String driver =
          node
              + "\nconst fs = require('fs');\n"
              + "const e = process.env;\n"
              + "console.log(verify(e.SECRET, e.TS, e.KEY, fs.readFileSync(e.BODY_FILE), e.SIG)"
              + " ? 'True' : 'False');\n";
      verdicts.add("node " + run(List.of("node", "-e", driver), call, SECRET));
      verdicts.add("node-tampered " + run(List.of("node", "-e", driver), tampered(call), SECRET));
    }
    assumeTrue(!verdicts.isEmpty(), "SignedCallTest: neither python3 nor node is installed");
    assertThat(verdicts)
        .allSatisfy(
            v ->
                assertThat(v)
                    .isIn(
                        "python True",
                        "python-tampered False",
                        "python-other-secret False",
                        "node True",
                        "node-tampered False"));
  }

  @Test
  void aShortSecretIsRefusedWithoutBeingRepeated() {
    assertThatThrownBy(() -> new CallSigner("short-secret"))
        .hasMessageContaining("at least 32 bytes")
        .hasMessageNotContaining("short-secret");
  }

  private static Call signedCall(String body) throws Exception {
    AtomicReference<Call> seen = new AtomicReference<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          var h = exchange.getRequestHeaders();
          seen.set(
              new Call(
                  h.getFirst(CallSigner.TIMESTAMP_HEADER),
                  h.getFirst("Idempotency-Key"),
                  h.getFirst(CallSigner.SIGNATURE_HEADER),
                  exchange.getRequestBody().readAllBytes()));
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    server.start();
    URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
    try (HttpTaskExecutor executor =
        new HttpTaskExecutor(
            new HttpTargetPolicy(
                new HostAllowList(List.of("127.0.0.1")),
                List.of(),
                PortList.parse(List.of("*")),
                false,
                InetAddress::getAllByName),
            Optional.of(new CallSigner(SECRET)),
            100,
            new SystemClock())) {
      TaskSpec task =
          TestTasks.spec(
              "signed",
              "default",
              Trigger.Once.after(Duration.ZERO),
              ExecutorSpec.http(url, null, Map.of(), body),
              Duration.ofSeconds(30),
              RetryPolicy.DEFAULT,
              Map.of());
      assertThat(
              executor
                  .execute(
                      new AttemptContext(
                          task,
                          "signed@1000",
                          1,
                          Instant.ofEpochMilli(1000),
                          "trace-1",
                          Instant.now().plusSeconds(30)))
                  .succeeded())
          .isTrue();
    } finally {
      server.stop(0);
    }
    return seen.get();
  }

  private static Call tampered(Call call) {
    byte[] body = call.body().clone();
    body[body.length - 2] ^= 1;
    return new Call(call.timestamp(), call.key(), call.signature(), body);
  }

  /** The first fenced code block in {@code language} of the doc. */
  private static String block(String doc, String language) {
    Matcher m = Pattern.compile("```" + language + "\\n(.*?)```", Pattern.DOTALL).matcher(doc);
    assertThat(m.find()).as("a ```%s block in docs/SECURITY.md", language).isTrue();
    return m.group(1);
  }

  /** Runs {@code command} with the call in its environment; its output, trimmed. */
  private static String run(List<String> command, Call call, String secret) throws Exception {
    Path bodyFile = Files.createTempFile("signed-body", ".bin");
    try {
      Files.write(bodyFile, call.body());
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
      builder.environment().put("SECRET", secret);
      builder.environment().put("TS", call.timestamp());
      builder.environment().put("KEY", call.key());
      builder.environment().put("SIG", call.signature());
      builder.environment().put("BODY_FILE", bodyFile.toString());
      Process process = builder.start();
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s finishes", command.get(0)).isTrue();
      return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    } finally {
      Files.deleteIfExists(bodyFile);
    }
  }
}
