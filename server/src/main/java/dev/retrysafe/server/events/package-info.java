/**
 * The account's event log ({@code GET /v1/events}) and its link to webhook delivery: every event
 * is written to the {@code events} table and to the delivery outbox in the transaction of the
 * change it describes, with the same {@code {id, type, timestamp, data}} JSON in both.
 */
@NullMarked
package dev.retrysafe.server.events;

import org.jspecify.annotations.NullMarked;
