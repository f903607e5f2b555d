package dev.ax.ingest;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A command ingest will reject, and why: sent to the rejected topic (and logged) only once the
 * batch's writes succeeded, so a batch that fails and is tried again rejects each record once.
 */
record Refusal(ConsumerRecord<String, byte[]> record, RejectionClass reasonClass, String reason) {}
