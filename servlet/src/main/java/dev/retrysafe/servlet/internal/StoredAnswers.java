package dev.retrysafe.servlet.internal;

import dev.retrysafe.idempotency.HeaderField;
import dev.retrysafe.idempotency.StoredResponse;
import dev.retrysafe.servlet.StoredAnswerTransform;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** Chooses what of a buffered answer is stored for replay. Stateless and threadsafe. */
final class StoredAnswers {

    private StoredAnswers() {}

    /**
     * What is stored of {@code answer} to {@code request}: {@link #of}, through the transform of
     * the request's route if it has one.
     *
     * @throws RuntimeException whatever the transform throws
     */
    static StoredResponse forStore(FilterSettings settings, HttpServletRequest request, Answer.Buffered answer) {
        StoredResponse stored = of(answer, settings.storedHeaders());
        StoredAnswerTransform transform = transformOf(settings, request);
        return transform == null ? stored : transform.toStored(request, stored);
    }

    /**
     * What a retry, {@code request}, is answered from {@code stored}: through the transform of
     * its route if it has one, else {@code stored} unchanged.
     *
     * @throws RuntimeException whatever the transform throws
     */
    static StoredResponse forReplay(FilterSettings settings, HttpServletRequest request, StoredResponse stored) {
        StoredAnswerTransform transform = transformOf(settings, request);
        return transform == null ? stored : transform.toReplay(request, stored);
    }

    private static @Nullable StoredAnswerTransform transformOf(FilterSettings settings, HttpServletRequest request) {
        return settings.transformFor(request.getMethod(), IdempotencyHandler.pathOf(request));
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
