package dev.retrysafe.spring.internal;

import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when {@code retrysafe.webhooks.in.secrets} holds at least one secret (list or comma-separated). */
public final class WebhookSecretsCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        List<String> secrets = Binder.get(context.getEnvironment())
                .bind("retrysafe.webhooks.in.secrets", Bindable.listOf(String.class))
                .orElse(List.of());
        return secrets.stream().anyMatch(s -> !s.isBlank())
                ? ConditionOutcome.match("retrysafe.webhooks.in.secrets is set")
                : ConditionOutcome.noMatch("retrysafe.webhooks.in.secrets is empty");
    }
}
