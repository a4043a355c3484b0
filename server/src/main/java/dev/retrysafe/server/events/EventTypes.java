package dev.retrysafe.server.events;

import dev.retrysafe.delivery.EventSink;
import java.util.List;

/**
 * Every event type the server emits, in one place: the code that appends events names them from
 * here, and the tests check that the OpenAPI document's {@code webhooks} section describes exactly
 * these.
 */
public final class EventTypes {

    /** The bank approved a charge; {@code data} is the payment. */
    public static final String PAYMENT_SUCCEEDED = "payment.succeeded";
    /** The bank declined a charge; {@code data} is the payment. */
    public static final String PAYMENT_FAILED = "payment.failed";
    /** A refund was made; {@code data} is the refund. */
    public static final String REFUND_CREATED = "refund.created";
    /** A report's result can be downloaded; {@code data} is the job. */
    public static final String REPORT_SUCCEEDED = "report.succeeded";
    /** A report failed; {@code data} is the job with its {@code error}. */
    public static final String REPORT_FAILED = "report.failed";
    /** The dispatcher disabled a webhook endpoint; {@code data} describes the endpoint. */
    public static final String WEBHOOK_ENDPOINT_DISABLED = EventSink.ENDPOINT_DISABLED;

    /** All of them. */
    public static final List<String> ALL = List.of(
            PAYMENT_SUCCEEDED,
            PAYMENT_FAILED,
            REFUND_CREATED,
            REPORT_SUCCEEDED,
            REPORT_FAILED,
            WEBHOOK_ENDPOINT_DISABLED);

    private EventTypes() {}
}
