package dev.ax.dispatcher.executor.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.config.ConfigException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CallSignersTest {

  private static final String SHARED = "shared-secret-0123456789abcdef0123456789";
  private static final String BILLING = "billing-secret-0123456789abcdef012345678";
  private static final byte[] BODY = "{}".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;

  @Test
  void aNamespaceIsSignedWithItsOwnSecretOthersWithTheSharedOne() throws Exception {
    Path file = dir.resolve("secrets");
    Files.writeString(file, "# per namespace\nbilling " + BILLING + "\n");
    CallSigners signers = CallSigners.of(SHARED, file.toString());

    String billingCall = signers.forInstance("billing~job@1").orElseThrow().signature(1, "k", BODY);
    assertThat(billingCall).isEqualTo(new CallSigner(BILLING).signature(1, "k", BODY));
    assertThat(billingCall).isNotEqualTo(new CallSigner(SHARED).signature(1, "k", BODY));
    assertThat(signers.forInstance("job@1").orElseThrow().signature(1, "k", BODY))
        .isEqualTo(new CallSigner(SHARED).signature(1, "k", BODY));
    assertThat(signers.forInstance("shop~job@1").orElseThrow().signature(1, "k", BODY))
        .isEqualTo(new CallSigner(SHARED).signature(1, "k", BODY));
    assertThat(signers.toString()).doesNotContain(BILLING).doesNotContain(SHARED);
  }

  @Test
  void withoutSecretsNothingIsSigned() {
    assertThat(CallSigners.of("", "").forInstance("billing~job@1")).isEmpty();
  }

  @Test
  void aBadLineIsRefusedByNumberWithoutItsSecret() throws Exception {
    Path file = dir.resolve("secrets");
    Files.writeString(file, "billing short-secret\n");
    assertThatThrownBy(() -> CallSigners.of("", file.toString()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("line 1")
        .hasMessageContaining("at least 32 bytes")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("short-secret"));
    Files.writeString(file, "Bad_Name " + BILLING + "\n");
    assertThatThrownBy(() -> CallSigners.of("", file.toString()))
        .hasMessageContaining("expected `<namespace> <secret>`");
    Files.writeString(file, "billing " + BILLING + "\nbilling " + BILLING + "\n");
    assertThatThrownBy(() -> CallSigners.of("", file.toString())).hasMessageContaining("twice");
    assertThatThrownBy(() -> CallSigners.of("", dir.resolve("none").toString()))
        .hasMessageContaining("cannot be read");
  }
}
