package dev.retrysafe.server.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.retrysafe.delivery.WebhookEndpoints;
import dev.retrysafe.server.http.BodyFields;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** The webhook-specific members of request bodies; the generic ones are read by {@link BodyFields}. */
final class EndpointFields {

    static final int MAX_URL_LENGTH = 2048;
    static final int MAX_DESCRIPTION_LENGTH = 1024;
    static final int MAX_EVENT_TYPES = 100;
    private static final int MAX_EVENT_TYPE_LENGTH = 255;
    private static final Pattern EVENT_TYPE = Pattern.compile("[a-z0-9_]+(\\.[a-z0-9_]+)*");

    private EndpointFields() {}

    /**
     * What a request body says about the rate limit: nothing ({@code present} false), no limit
     * ({@code null}), or attempts per second.
     *
     * @param present    whether the member was sent (an invalid one counts as not sent; its error is recorded)
     * @param perSecond  the limit; {@code null} with {@code present}: no limit
     */
    record RateLimit(boolean present, @Nullable Integer perSecond) {
        static final RateLimit ABSENT = new RateLimit(false, null);
    }

    /**
     * {@code rate_limit}: an integer from 1 to {@value WebhookEndpoints#MAX_RATE_LIMIT} (attempts
     * per second), or {@code null} for no limit. Read from the body itself, because
     * {@link BodyFields} does not tell an explicit {@code null} from an absent member.
     */
    static RateLimit rateLimit(BodyFields f, ObjectNode body, String name) {
        JsonNode n = body.get(name);
        if (n == null) {
            return RateLimit.ABSENT;
        }
        if (n.isNull()) {
            return new RateLimit(true, null);
        }
        if (!n.isIntegralNumber()
                || !n.canConvertToInt()
                || n.intValue() < 1
                || n.intValue() > WebhookEndpoints.MAX_RATE_LIMIT) {
            f.reject(
                    name,
                    "must be an integer from 1 to " + WebhookEndpoints.MAX_RATE_LIMIT
                            + " (attempts per second), or null for no limit");
            return RateLimit.ABSENT;
        }
        return new RateLimit(true, n.intValue());
    }

    /** 1..100 event types such as {@code payment.succeeded}, or {@code *} for every type. */
    static @Nullable Set<String> eventTypes(BodyFields f, String name, boolean required) {
        JsonNode n = f.member(name);
        if (n == null) {
            if (required) {
                f.reject(name, "is required");
            }
            return null;
        }
        if (!n.isArray() || n.isEmpty() || n.size() > MAX_EVENT_TYPES) {
            f.reject(
                    name,
                    "must be a list of 1 to " + MAX_EVENT_TYPES
                            + " event types such as \"payment.succeeded\", or [\"*\"] for every type");
            return null;
        }
        Set<String> types = new LinkedHashSet<>();
        for (JsonNode item : n) {
            if (!item.isTextual()
                    || item.textValue().length() > MAX_EVENT_TYPE_LENGTH
                    || !(item.textValue().equals("*")
                            || EVENT_TYPE.matcher(item.textValue()).matches())) {
                f.reject(name, "entries must be event types such as \"payment.succeeded\" or \"*\"");
                return null;
            }
            types.add(item.textValue());
        }
        return types;
    }
}
