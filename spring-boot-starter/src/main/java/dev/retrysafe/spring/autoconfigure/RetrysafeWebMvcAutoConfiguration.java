package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.servlet.IdempotencyFilter;
import dev.retrysafe.spring.RetrysafeCaller;
import dev.retrysafe.spring.internal.HandlerLookup;
import dev.retrysafe.spring.internal.RateLimitFilters;
import dev.retrysafe.spring.internal.RetrysafeRequestFilter;
import java.security.Principal;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * What the request-side pieces share in a Spring MVC application: who the caller is, which
 * handler method a request goes to, and the one filter that applies {@code @Idempotent} and
 * {@code @RateLimited} (ordered at 0, after Spring Security's filters, so that the caller is
 * known).
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({DispatcherServlet.class, IdempotencyFilter.class})
public class RetrysafeWebMvcAutoConfiguration {

    /** The order of Retrysafe's filter: after Spring Security's (-100). */
    public static final int FILTER_ORDER = 0;

    /** The name of the authenticated principal, which Spring Security fills in when present. */
    @Bean
    @ConditionalOnMissingBean
    RetrysafeCaller retrysafeCaller() {
        return request -> {
            Principal principal = request.getUserPrincipal();
            return principal == null ? null : principal.getName();
        };
    }

    @Bean
    @ConditionalOnMissingBean
    HandlerLookup retrysafeHandlerLookup(ApplicationContext context) {
        return new HandlerLookup(context);
    }

    @Bean
    @ConditionalOnMissingBean(name = "retrysafeRequestFilter")
    FilterRegistrationBean<RetrysafeRequestFilter> retrysafeRequestFilter(
            HandlerLookup lookup,
            ObjectProvider<IdempotencyFilter> idempotency,
            ObjectProvider<RateLimitFilters> rateLimits) {
        FilterRegistrationBean<RetrysafeRequestFilter> registration = new FilterRegistrationBean<>(
                new RetrysafeRequestFilter(lookup, idempotency.getIfUnique(), rateLimits.getIfUnique()));
        registration.setName("retrysafeRequestFilter");
        registration.setOrder(FILTER_ORDER);
        return registration;
    }
}
