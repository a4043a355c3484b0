package dev.retrysafe.servlet.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Proxy;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CachedBodyRequestTest {

    private static HttpServletRequest original(String contentType) {
        return (HttpServletRequest) Proxy.newProxyInstance(
                HttpServletRequest.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getContentType" -> contentType;
                    case "getCharacterEncoding" -> null;
                    case "getParameterMap" -> Map.of("q", new String[] {"from-query"});
                    default -> throw new AssertionError("unexpected call " + method.getName());
                });
    }

    @Test
    void bodyCanBeReadAgainAndAgain() throws Exception {
        CachedBodyRequest request = new CachedBodyRequest(original("application/json"), "{\"a\":1}".getBytes(UTF_8));

        assertThat(request.getInputStream().readAllBytes()).asString(UTF_8).isEqualTo("{\"a\":1}");
        assertThat(request.getInputStream().readAllBytes()).asString(UTF_8).isEqualTo("{\"a\":1}");
        assertThat(request.getReader().readLine()).isEqualTo("{\"a\":1}");
        assertThat(request.getContentLengthLong()).isEqualTo(7);
    }

    @Test
    void formFieldsInTheBodyAreStillParameters() {
        CachedBodyRequest request = new CachedBodyRequest(
                original("application/x-www-form-urlencoded"),
                "amount=500&note=caf%C3%A9+au+lait&q=from-body&flag".getBytes(UTF_8));

        assertThat(request.getParameter("amount")).isEqualTo("500");
        assertThat(request.getParameter("note")).isEqualTo("caf\u00e9 au lait");
        assertThat(request.getParameterValues("q")).containsExactly("from-query", "from-body");
        assertThat(request.getParameter("flag")).isEmpty();
        assertThat(request.getParameter("missing")).isNull();
    }
}
