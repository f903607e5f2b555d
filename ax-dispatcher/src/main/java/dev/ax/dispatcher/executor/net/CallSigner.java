package dev.ax.dispatcher.executor.net;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs each HTTP task call so that its receiver can tell it came from AX and was not replayed from
 * long ago: {@code X-AX-Signature: v1=<hex>}, the HMAC-SHA256 under the shared secret of {@code
 * <timestamp>.<idempotency key>.<body>}, with {@code X-AX-Timestamp: <epoch seconds>}. A receiver
 * recomputes it over what it received and refuses a mismatch or an old timestamp (docs/SECURITY.md
 * has the scheme and verifiers in Python and Node). Immutable and thread-safe: each call makes its
 * own {@link Mac}.
 */
public final class CallSigner {

  public static final String SIGNATURE_HEADER = "X-AX-Signature";
  public static final String TIMESTAMP_HEADER = "X-AX-Timestamp";

  /** The least secret accepted: 32 bytes, HMAC-SHA256's own output length. */
  public static final int MIN_SECRET_BYTES = 32;

  private static final String ALGORITHM = "HmacSHA256";

  private final SecretKeySpec key;

  /**
   * @throws IllegalArgumentException for a secret shorter than {@value #MIN_SECRET_BYTES} bytes
   *     (without the secret in the message)
   */
  public CallSigner(String secret) {
    byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
    if (bytes.length < MIN_SECRET_BYTES) {
      throw new IllegalArgumentException(
          "a signing secret must be at least "
              + MIN_SECRET_BYTES
              + " bytes, e.g. `openssl rand -hex 32`; it has "
              + bytes.length);
    }
    this.key = new SecretKeySpec(bytes, ALGORITHM);
  }

  /** The {@value #SIGNATURE_HEADER} value for a call at {@code epochSeconds}. */
  public String signature(long epochSeconds, String idempotencyKey, byte[] body) {
    Mac mac;
    try {
      mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("every JDK has " + ALGORITHM, e);
    }
    mac.update((epochSeconds + "." + idempotencyKey + ".").getBytes(StandardCharsets.UTF_8));
    mac.update(body);
    return "v1=" + HexFormat.of().formatHex(mac.doFinal());
  }

  /**
   * The secret as text, only to mask it in a run's output before that is stored ({@code
   * OutputMask}); never log or send it.
   */
  public String secretToMask() {
    return new String(key.getEncoded(), StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "CallSigner[HmacSHA256, secret ****]";
  }
}
