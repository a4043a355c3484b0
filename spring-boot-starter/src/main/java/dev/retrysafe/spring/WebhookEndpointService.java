package dev.retrysafe.spring;

import dev.retrysafe.delivery.EndpointUpdate;
import dev.retrysafe.delivery.EndpointWithSecret;
import dev.retrysafe.delivery.NewEndpoint;
import dev.retrysafe.delivery.Page;
import dev.retrysafe.delivery.PageRequest;
import dev.retrysafe.delivery.TargetDecision;
import dev.retrysafe.delivery.TargetGuard;
import dev.retrysafe.delivery.WebhookEndpoint;
import dev.retrysafe.delivery.WebhookEndpoints;
import dev.retrysafe.webhooks.WebhookSecret;
import java.util.Objects;
import java.util.Optional;

/**
 * Manages webhook endpoints: the delivery module's {@link WebhookEndpoints} store with the SSRF
 * guard in front of every URL given to it, so an endpoint can never point at an internal
 * address. Every method takes the account whose endpoints it reads or changes; another account's
 * endpoint looks like one that does not exist. A change that makes held deliveries due at once
 * (a resume, ordering turned off) wakes this instance's dispatcher, if it runs one. This class is
 * threadsafe.
 */
public final class WebhookEndpointService {

    private final WebhookEndpoints store;
    private final TargetGuard guard;
    private final Runnable deliveriesDue;

    /** The service over {@code store}, checking URLs with {@code guard}. */
    public WebhookEndpointService(WebhookEndpoints store, TargetGuard guard) {
        this(store, guard, () -> {});
    }

    /**
     * The service over {@code store}, checking URLs with {@code guard}; {@code deliveriesDue} runs
     * after a change that made held deliveries due now (it wakes the dispatcher).
     */
    public WebhookEndpointService(WebhookEndpoints store, TargetGuard guard, Runnable deliveriesDue) {
        this.store = Objects.requireNonNull(store, "store");
        this.guard = Objects.requireNonNull(guard, "guard");
        this.deliveriesDue = Objects.requireNonNull(deliveriesDue, "deliveriesDue");
    }

    /**
     * Creates an enabled endpoint with a new secret, after the SSRF guard accepted its URL.
     *
     * @throws WebhookTargetRefusedException if the guard refuses the URL
     */
    public EndpointWithSecret create(String accountId, NewEndpoint endpoint) {
        checkTarget(endpoint.url().toString());
        return store.create(accountId, endpoint);
    }

    /** The endpoint, if the account has it. */
    public Optional<WebhookEndpoint> get(String accountId, String endpointId) {
        return store.get(accountId, endpointId);
    }

    /** A page of the account's endpoints, newest first. */
    public Page<WebhookEndpoint> list(String accountId, PageRequest page) {
        return store.list(accountId, page);
    }

    /**
     * Applies a partial change ({@code PATCH}), after the SSRF guard accepted a new URL; empty if
     * the account has no such endpoint. {@code headers} replace the whole set; {@code ordered}
     * {@code false} sends at once what waited for its key's turn.
     *
     * @throws WebhookTargetRefusedException if the guard refuses the new URL
     */
    public Optional<WebhookEndpoint> update(String accountId, String endpointId, EndpointUpdate update) {
        if (update.url() != null) {
            checkTarget(update.url().toString());
        }
        Optional<WebhookEndpoint> updated = store.update(accountId, endpointId, update);
        if (updated.isPresent() && (Boolean.FALSE.equals(update.ordered()) || Boolean.TRUE.equals(update.enabled()))) {
            deliveriesDue.run();
        }
        return updated;
    }

    /**
     * Pauses the endpoint: its deliveries are held (none attempted, none failed, its failing
     * streak stopped) until {@link #resume}; pausing a paused one changes nothing. Empty if the
     * account has no such endpoint.
     */
    public Optional<WebhookEndpoint> pause(String accountId, String endpointId) {
        return store.pause(accountId, endpointId);
    }

    /**
     * Resumes a paused endpoint: what waited is due at once, oldest first (of an ordered endpoint,
     * each ordering key in commit order); resuming one that is not paused changes nothing. Empty
     * if the account has no such endpoint.
     */
    public Optional<WebhookEndpoint> resume(String accountId, String endpointId) {
        Optional<WebhookEndpoint> resumed = store.resume(accountId, endpointId);
        if (resumed.isPresent()) {
            deliveriesDue.run();
        }
        return resumed;
    }

    /** Deletes the endpoint with its deliveries; false if the account has none with this id. */
    public boolean delete(String accountId, String endpointId) {
        return store.delete(accountId, endpointId);
    }

    /** The endpoint's current signing secret. */
    public Optional<WebhookSecret> secret(String accountId, String endpointId) {
        return store.secret(accountId, endpointId);
    }

    /** The store itself, for the operations this service does not repeat (rotation, enable, the delivery log, retry). */
    public WebhookEndpoints store() {
        return store;
    }

    /**
     * Checks {@code url} with the SSRF guard.
     *
     * @throws WebhookTargetRefusedException if the guard refuses it
     */
    public void checkTarget(String url) {
        if (guard.check(url) instanceof TargetDecision.Refused refused) {
            throw new WebhookTargetRefusedException(refused);
        }
    }
}
