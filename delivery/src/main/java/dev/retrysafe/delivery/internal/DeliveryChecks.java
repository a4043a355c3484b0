package dev.retrysafe.delivery.internal;

import dev.retrysafe.common.TopicPatterns;
import dev.retrysafe.leasedwork.internal.Checks;
import java.net.URI;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/** Validation shared by the public records; messages name the parameter and the bad value. */
public final class DeliveryChecks {

    /** The event type that subscribes an endpoint to every type. */
    public static final String ALL_EVENT_TYPES = TopicPatterns.ALL;
    /** Longest event type, account id or event id. */
    public static final int MAX_NAME_LENGTH = 255;
    /** Longest endpoint URL. */
    public static final int MAX_URL_LENGTH = 2048;
    /** Longest endpoint description. */
    public static final int MAX_DESCRIPTION_LENGTH = 1024;
    /** Most event types one endpoint subscribes to. */
    public static final int MAX_EVENT_TYPES = 100;
    /** Highest per-endpoint rate limit, attempts per second. */
    public static final int MAX_RATE_LIMIT = 10_000;

    private DeliveryChecks() {}

    /** {@code value} if it is 1 to 255 characters and not blank. */
    public static String name(String parameter, String value) {
        if (value.isBlank() || value.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(parameter + " must be 1 to " + MAX_NAME_LENGTH
                    + " characters and not blank, was '" + abbreviate(value) + "'");
        }
        return value;
    }

    /** {@code type} if it is an event type such as {@code payment.succeeded}. */
    public static String eventType(String parameter, String type) {
        if (type.length() > MAX_NAME_LENGTH || !TopicPatterns.isTopic(type)) {
            throw new IllegalArgumentException(parameter + " must be dotted lower-case words such as "
                    + "'payment.succeeded', was '" + abbreviate(type) + "'");
        }
        return type;
    }

    /**
     * The subscribed patterns, in order, without repeats: event types, prefixes such as
     * {@code payment.*}, or {@code *} ({@link TopicPatterns}, as the live stream takes them).
     */
    public static Set<String> eventTypes(Set<String> types) {
        if (types.isEmpty() || types.size() > MAX_EVENT_TYPES) {
            throw new IllegalArgumentException(
                    "eventTypes must hold 1 to " + MAX_EVENT_TYPES + " types ('*' for all), had " + types.size());
        }
        Set<String> out = new LinkedHashSet<>();
        for (String type : types) {
            if (type.length() > MAX_NAME_LENGTH || !TopicPatterns.isPattern(type)) {
                throw new IllegalArgumentException("eventTypes must be event types such as 'payment.succeeded', "
                        + "prefixes such as 'payment.*', or '*', had '" + abbreviate(type) + "'");
            }
            out.add(type);
        }
        return java.util.Collections.unmodifiableSet(out);
    }

    /** {@code url} if it is an absolute http(s) URL with a host (the SSRF guard checks the rest). */
    public static URI url(URI url) {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || url.getHost() == null) {
            throw new IllegalArgumentException(
                    "url must be an absolute http or https URL with a host, was '" + abbreviate(url.toString()) + "'");
        }
        if (url.toString().length() > MAX_URL_LENGTH) {
            throw new IllegalArgumentException("url must be at most " + MAX_URL_LENGTH + " characters, was "
                    + url.toString().length());
        }
        return url;
    }

    /** {@code description} if it is at most 1024 characters. */
    public static String description(String description) {
        if (description.length() > MAX_DESCRIPTION_LENGTH) {
            throw new IllegalArgumentException("description must be at most " + MAX_DESCRIPTION_LENGTH
                    + " characters, was " + description.length());
        }
        return description;
    }

    /** {@code perSecond} if it is 1 to {@link #MAX_RATE_LIMIT}. */
    public static int rateLimit(int perSecond) {
        if (perSecond < 1 || perSecond > MAX_RATE_LIMIT) {
            throw new IllegalArgumentException(
                    "rateLimit must be 1 to " + MAX_RATE_LIMIT + " attempts per second, was " + perSecond);
        }
        return perSecond;
    }

    /** Longest {@code traceparent} stored with an event (a version 00 one has 55 characters). */
    public static final int MAX_TRACEPARENT_LENGTH = 128;

    /**
     * {@code value} if it is a W3C Trace Context {@code traceparent}: {@code version-traceid-parentid-flags}
     * in lower-case hex (2, 32, 16 and 2 digits), trace and parent ids not all zeros, version not
     * {@code ff}; a version 00 value is exactly 55 characters, a later version may carry more after a
     * {@code -} (kept as it is), up to {@link #MAX_TRACEPARENT_LENGTH}.
     */
    public static String traceparent(String parameter, String value) {
        if (!isTraceparent(value)) {
            throw new IllegalArgumentException(parameter + " must be a W3C traceparent such as "
                    + "'00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', was '" + abbreviate(value) + "'");
        }
        return value;
    }

    /** Whether {@code value} is a {@code traceparent} as {@link #traceparent} takes it. */
    public static boolean isTraceparent(String value) {
        int n = value.length();
        if (n < 55
                || n > MAX_TRACEPARENT_LENGTH
                || value.charAt(2) != '-'
                || value.charAt(35) != '-'
                || value.charAt(52) != '-') {
            return false;
        }
        if (!hex(value, 0, 2) || !hex(value, 3, 35) || !hex(value, 36, 52) || !hex(value, 53, 55)) {
            return false;
        }
        if (value.startsWith("ff") || zeros(value, 3, 35) || zeros(value, 36, 52)) {
            return false;
        }
        boolean version00 = value.startsWith("00");
        return version00 ? n == 55 : n == 55 || value.charAt(55) == '-';
    }

    private static boolean hex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    private static boolean zeros(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) != '0') {
                return false;
            }
        }
        return true;
    }

    /** The first 64 characters, for messages. */
    public static String abbreviate(String s) {
        return Checks.abbreviate(s, 64);
    }
}
