package dev.retrysafe.server.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.http.RequestAccount;
import dev.retrysafe.server.http.RequestEffects;
import jakarta.servlet.FilterChain;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which loops a request wakes: only those it gave work, and only after a successful POST. */
class DispatcherWakeUpTest {

    private final List<String> woken = new ArrayList<>();
    private final DispatcherWakeUp filter = new DispatcherWakeUp(DispatcherWakeUp.targets(
            () -> woken.add("deliveries"), () -> woken.add("jobs"), account -> woken.add("events:" + account)));

    @Test
    void aPaymentWithoutSubscribedEndpointsWakesOnlyTheStreams() throws Exception {
        handle("POST", "/v1/payments", 201, () -> RequestEffects.eventsRecorded(0));
        assertThat(woken).containsExactly("events:acct_1");
    }

    @Test
    void aPaymentWhoseEventMadeDeliveriesAlsoWakesTheDispatcher() throws Exception {
        handle("POST", "/v1/payments", 201, () -> {
            RequestEffects.eventsRecorded(0);
            RequestEffects.eventsRecorded(2);
        });
        assertThat(woken).containsExactly("deliveries", "events:acct_1");
    }

    @Test
    void anEnqueuedJobWakesTheWorkersOnly() throws Exception {
        handle("POST", "/v1/reports", 202, RequestEffects::jobEnqueued);
        assertThat(woken).containsExactly("jobs");
    }

    @Test
    void deliveriesMadeDueAgainWakeTheDispatcher() throws Exception {
        handle("POST", "/v1/webhook_endpoints/we_1/recover", 202, RequestEffects::deliveriesChanged);
        handle("POST", "/v1/deliveries/dlv_1/retry", 202, RequestEffects::deliveriesChanged);
        handle("POST", "/v1/webhook_endpoints", 201, () -> {}); // a new endpoint has no deliveries yet
        handle("POST", "/v1/webhook_endpoints/we_1/rotate_secret", 200, () -> {});
        assertThat(woken).containsExactly("deliveries", "deliveries");
    }

    @Test
    void aFailedOrNonPostRequestWakesNothingWhateverItNoted() throws Exception {
        handle("POST", "/v1/payments", 409, () -> RequestEffects.eventsRecorded(1));
        handle("GET", "/v1/payments", 200, () -> RequestEffects.eventsRecorded(1));
        handle("POST", "/v1/payments", 201, () -> {}); // a replayed answer records nothing
        assertThat(woken).isEmpty();
    }

    @Test
    void notesOutsideARequestAreIgnoredAndDoNotLeakIntoTheNext() throws Exception {
        RequestEffects.eventsRecorded(3); // a background thread appending events: no request to note on
        RequestEffects.jobEnqueued();
        handle("POST", "/v1/refunds", 201, () -> {});
        assertThat(woken).isEmpty();
    }

    private void handle(String method, String uri, int status, Runnable handler) throws Exception {
        Account account = new Account("acct_1", "Test", "free");
        HttpServletRequest request = proxy(HttpServletRequest.class, (name, args) -> switch (name) {
            case "getMethod" -> method;
            case "getRequestURI" -> uri;
            case "getAttribute" -> RequestAccount.ATTRIBUTE.equals(args[0]) ? account : null;
            default -> throw new UnsupportedOperationException(name);
        });
        HttpServletResponse response = proxy(HttpServletResponse.class, (name, args) -> switch (name) {
            case "getStatus" -> status;
            default -> throw new UnsupportedOperationException(name);
        });
        FilterChain chain = (req, res) -> handler.run();
        filter.doFilter(request, response, chain);
    }

    private interface Answers {
        Object answer(String method, Object[] args);
    }

    private static <T> T proxy(Class<T> type, Answers answers) {
        return type.cast(Proxy.newProxyInstance(
                type.getClassLoader(), new Class<?>[] {type}, (p, m, args) -> answers.answer(m.getName(), args)));
    }
}
