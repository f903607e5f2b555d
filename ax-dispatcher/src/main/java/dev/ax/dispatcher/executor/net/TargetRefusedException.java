package dev.ax.dispatcher.executor.net;

import java.net.UnknownHostException;

/**
 * A host name whose addresses {@link HttpTargetPolicy} refuses, thrown where a lookup is expected
 * (the HTTP client's {@link CheckedDnsResolver}), so that the client gets no address to connect to.
 * Its message is the refusal: the rule, host and address, never a secret.
 */
public final class TargetRefusedException extends UnknownHostException {

  private static final long serialVersionUID = 1L;

  public TargetRefusedException(String reason) {
    super(reason);
  }

  /** Why the target was refused, as {@link HttpTargetPolicy#refusal} says it. */
  public String reason() {
    return getMessage();
  }
}
