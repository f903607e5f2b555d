package dev.ax.ingest;

import dev.ax.common.contract.TaskCommand;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** A command that passed the reader and the key check, with the record it came in. */
record CommandRow(ConsumerRecord<String, byte[]> record, TaskCommand command) {}
