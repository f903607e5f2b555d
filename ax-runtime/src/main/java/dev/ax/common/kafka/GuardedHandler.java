package dev.ax.common.kafka;

import dev.ax.common.kafka.ConsumerLoop.BatchHandler;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A {@link BatchHandler} call that returns what the handler threw instead of throwing it, so the
 * {@link ConsumerLoop} can judge the failure (an outage, or perhaps a poison record); only what
 * must stop the loop is thrown on: a wakeup, and an interrupt in either of its forms.
 *
 * <p>Stateless beyond the handler; called on the loop thread only, as the handler expects.
 */
final class GuardedHandler {

  private final String loopName;
  private final BatchHandler handler;

  GuardedHandler(String loopName, BatchHandler handler) {
    this.loopName = loopName;
    this.handler = handler;
  }

  /** The name of the loop the handler serves, for log lines. */
  String loopName() {
    return loopName;
  }

  /**
   * Hands {@code records} to the handler.
   *
   * @return null when it handled them, else what it threw
   * @throws InterruptedException when the thread was interrupted (the loop stops)
   */
  Exception tryHandle(ConsumerRecords<String, byte[]> records) throws InterruptedException {
    try {
      handler.handle(records);
      return null;
    } catch (WakeupException e) {
      throw e;
    } catch (InterruptedException e) {
      throw e;
    } catch (InterruptException e) {
      throw new InterruptedException(loopName + " interrupted");
    } catch (Exception e) {
      return e;
    }
  }
}
