package dev.retrysafe.spring;

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
 * endpoint looks like one that does not exist. This class is threadsafe.
 */
public final class WebhookEndpointService {

    private final WebhookEndpoints store;
    private final TargetGuard guard;

    /** The service over {@code store}, checking URLs with {@code guard}. */
    public WebhookEndpointService(WebhookEndpoints store, TargetGuard guard) {
        this.store = Objects.requireNonNull(store, "store");
        this.guard = Objects.requireNonNull(guard, "guard");
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

    /** Deletes the endpoint with its deliveries; false if the account has none with this id. */
    public boolean delete(String accountId, String endpointId) {
        return store.delete(accountId, endpointId);
    }

    /** The endpoint's current signing secret. */
    public Optional<WebhookSecret> secret(String accountId, String endpointId) {
        return store.secret(accountId, endpointId);
    }

    /** The store itself, for the operations this service does not repeat (updates, rotation, the delivery log). */
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
