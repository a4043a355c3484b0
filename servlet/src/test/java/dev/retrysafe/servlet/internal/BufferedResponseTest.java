package dev.retrysafe.servlet.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Proxy;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BufferedResponseTest {

    /** A real response that fails the test if the buffer ever touches it. */
    private static HttpServletResponse untouchable() {
        return (HttpServletResponse) Proxy.newProxyInstance(
                HttpServletResponse.class.getClassLoader(),
                new Class<?>[] {HttpServletResponse.class},
                (proxy, method, args) -> {
                    throw new AssertionError("the real response was touched: " + method.getName());
                });
    }

    @Test
    void keepsStatusHeadersCookiesAndBodyWithoutTouchingTheRealResponse() throws Exception {
        BufferedResponse response = new BufferedResponse(untouchable());

        response.setStatus(201);
        response.setHeader("Location", "/a");
        response.addHeader("X-Multi", "1");
        response.addIntHeader("x-multi", 2);
        response.setDateHeader("Date", 0);
        response.setHeader("Content-Length", "999");
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.addCookie(new Cookie("c", "v"));
        response.getOutputStream().write("{\"ok\":true}".getBytes(UTF_8));
        response.flushBuffer();

        assertThat(response.isCommitted()).isFalse();
        assertThat(response.getStatus()).isEqualTo(201);
        assertThat(response.headerPairs())
                .containsExactly(
                        Map.entry("Content-Type", "application/json;charset=UTF-8"),
                        Map.entry("Location", "/a"),
                        Map.entry("X-Multi", "1"),
                        Map.entry("X-Multi", "2"),
                        Map.entry("Date", "Thu, 1 Jan 1970 00:00:00 GMT"));
        assertThat(response.getHeaders("x-multi")).containsExactly("1", "2");
        assertThat(response.cookies()).extracting(Cookie::getName).containsExactly("c");
        assertThat(new String(response.bodyBytes(), UTF_8)).isEqualTo("{\"ok\":true}");
    }

    @Test
    void writerUsesTheChosenEncodingAndExcludesTheStream() {
        BufferedResponse response = new BufferedResponse(untouchable());
        response.setContentType("text/plain; charset=ISO-8859-1");

        response.getWriter().write("caf\u00e9");

        assertThat(response.bodyBytes()).containsExactly('c', 'a', 'f', 0xE9);
        assertThatIllegalStateException().isThrownBy(response::getOutputStream);
    }

    @Test
    void sendErrorAndRedirectSetTheStatusAndIgnoreLaterWrites() throws Exception {
        BufferedResponse error = new BufferedResponse(untouchable());
        error.getWriter().write("partial");
        error.sendError(404, "nope");
        error.getWriter().write("ignored");
        error.setStatus(200);

        assertThat(error.getStatus()).isEqualTo(404);
        assertThat(error.isCommitted()).isTrue();
        assertThat(error.bodyBytes()).isEmpty();

        BufferedResponse redirect = new BufferedResponse(untouchable());
        redirect.sendRedirect("/elsewhere", 303);
        assertThat(redirect.getStatus()).isEqualTo(303);
        assertThat(redirect.getHeader("location")).isEqualTo("/elsewhere");
    }

    @Test
    void resetForgetsEverythingBufferedSoFar() throws Exception {
        BufferedResponse response = new BufferedResponse(untouchable());
        response.setStatus(400);
        response.setHeader("X-A", "1");
        response.getOutputStream().write(1);

        response.reset();

        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(response.headerPairs()).isEmpty();
        assertThat(response.bodyBytes()).isEmpty();
    }
}
