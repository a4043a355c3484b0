package dev.retrysafe.servlet.internal;

import dev.retrysafe.servlet.LoadShedder;
import dev.retrysafe.servlet.ProblemType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** The answer to a request the {@link LoadShedder} sheds. Stateless and threadsafe. */
public final class Shedding {

    private Shedding() {}

    /**
     * Answers {@code 503 overloaded} with {@code Retry-After} to a request whose body was not
     * read: what is left of it is read and dropped first, as for every refusal before the body.
     */
    public static void refuse(
            HttpServletRequest request, HttpServletResponse response, LoadShedder shedder, LoadShedder.Priority shed)
            throws IOException {
        BoundedBody.release(request, response, RateLimitHandler.DRAIN_LIMIT);
        answer(shedder, shed).writeTo(response);
    }

    /** The same answer, to be written once the request's transaction is closed. */
    static Answer answer(LoadShedder shedder, LoadShedder.Priority shed) {
        Map<String, Object> extensions = new LinkedHashMap<>();
        extensions.put("priority", shed.wireName());
        extensions.put("retry_after", shedder.retryAfterSeconds());
        byte[] body = ProblemJson.render(
                ProblemType.OVERLOADED,
                shedder.problemTypeBase(),
                "the server is overloaded and refuses " + shed.wireName()
                        + "-priority requests for now; nothing was done; retry in " + shedder.retryAfterSeconds()
                        + " s",
                extensions);
        return new Answer.Shed(shedder.retryAfterSeconds(), body);
    }
}
