package dev.retrysafe.spring.internal;

import dev.retrysafe.spring.RateLimited;
import java.util.List;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Stops the start when a {@code @RateLimited} on a mapped controller method (or its class) names
 * a policy that {@code retrysafe.rate-limits.policies} does not define: a typo found when the
 * application starts, not as an error on the route's first request.
 */
public final class RateLimitedNamesCheck implements SmartInitializingSingleton {

    private final ApplicationContext context;
    private final RateLimitFilters filters;

    /** Checks the handler methods of {@code context}'s request mappings against {@code filters}. */
    public RateLimitedNamesCheck(ApplicationContext context, RateLimitFilters filters) {
        this.context = context;
        this.filters = filters;
    }

    @Override
    public void afterSingletonsInstantiated() {
        for (RequestMappingHandlerMapping mapping :
                context.getBeansOfType(RequestMappingHandlerMapping.class).values()) {
            for (HandlerMethod method : mapping.getHandlerMethods().values()) {
                RateLimited limited = AnnotatedElementUtils.findMergedAnnotation(method.getMethod(), RateLimited.class);
                if (limited == null) {
                    limited = AnnotatedElementUtils.findMergedAnnotation(method.getBeanType(), RateLimited.class);
                }
                if (limited != null) {
                    try {
                        filters.forPolicies(List.of(limited.value()));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalStateException(method.getShortLogMessage() + ": " + e.getMessage(), e);
                    }
                }
            }
        }
    }
}
