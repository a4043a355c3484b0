package dev.retrysafe.servlet.internal;

import dev.retrysafe.idempotency.HeaderField;
import dev.retrysafe.idempotency.StoredResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Chooses what of a buffered answer is stored for replay. Stateless and threadsafe. */
final class StoredAnswers {

    private StoredAnswers() {
    }

    /**
     * The status, body and the headers named in {@code storedHeaders} (lowercase) of
     * {@code answer}. A header value that could not be replayed safely (CR or LF) is left out.
     */
    static StoredResponse of(Answer.Buffered answer, Set<String> storedHeaders) {
        List<HeaderField> fields = new ArrayList<>();
        for (Map.Entry<String, String> header : answer.headers()) {
            if (storedHeaders.contains(header.getKey().toLowerCase(Locale.ROOT))) {
                try {
                    fields.add(new HeaderField(header.getKey(), header.getValue()));
                } catch (IllegalArgumentException unsafe) {
                    // the container would refuse to send it too
                }
            }
        }
        return new StoredResponse(answer.status(), fields, answer.body());
    }
}
