package dev.retrysafe.webhooks.internal;

import dev.retrysafe.webhooks.WebhookSigner;

/** The rules for message ids. Threadsafe (stateless). */
public final class Ids {

    private Ids() {}

    /**
     * Rejects an id we would not send: empty, too long, or with a character outside visible
     * ASCII or a dot. The specification asks senders to keep dots out of ids, because
     * {@code id.timestamp.body} is only unambiguous if the id cannot contain the separator.
     */
    public static void checkForSigning(String id) {
        checkLength(id);
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c <= ' ' || c >= 0x7f || c == '.') {
                throw new IllegalArgumentException(
                        "webhook id must be visible ASCII without '.', has " + describe(c) + " at index " + i);
            }
        }
    }

    /** Rejects an id a de-duplicator cannot store: empty or longer than {@value WebhookSigner#MAX_ID_LENGTH}. */
    public static String checkLength(String id) {
        if (id.isEmpty() || id.length() > WebhookSigner.MAX_ID_LENGTH) {
            throw new IllegalArgumentException(
                    "webhook id must be 1 to " + WebhookSigner.MAX_ID_LENGTH + " characters, was " + id.length());
        }
        return id;
    }

    private static String describe(char c) {
        return c == '.' ? "'.'" : String.format("U+%04X", (int) c);
    }
}
