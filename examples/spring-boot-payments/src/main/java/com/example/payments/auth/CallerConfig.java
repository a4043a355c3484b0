package com.example.payments.auth;

import dev.retrysafe.spring.RetrysafeCaller;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Tells Retrysafe who is calling: the account of the request's Bearer key (idempotency keys and rate limits are per account). */
@Configuration(proxyBeanMethods = false)
class CallerConfig {

    @Bean
    RetrysafeCaller retrysafeCaller(ApiKeys keys) {
        return request ->
                keys.accountOfHeader(request.getHeader("Authorization")).orElse(null);
    }
}
