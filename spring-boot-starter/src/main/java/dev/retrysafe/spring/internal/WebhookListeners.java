package dev.retrysafe.spring.internal;

import dev.retrysafe.spring.WebhookListener;
import dev.retrysafe.webhooks.VerifiedWebhook;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Finds the {@link WebhookListener} methods of every bean as it is initialised and hands each
 * verified delivery to those whose types match the body's {@code type}. A method's single
 * parameter decides what it gets: the {@link VerifiedWebhook}, the body as {@code String} or
 * {@code byte[]}, or the JSON body read by Jackson into the parameter's type. Threadsafe.
 */
public final class WebhookListeners implements BeanPostProcessor {

    private final List<Registered> listeners = new CopyOnWriteArrayList<>();
    private volatile @Nullable JsonMapper mapper;

    /** Uses {@code mapper} to read bodies (the application's, once known). */
    public void useMapper(JsonMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        Map<Method, WebhookListener> found =
                MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<WebhookListener>)
                        method -> AnnotatedElementUtils.findMergedAnnotation(method, WebhookListener.class));
        for (Map.Entry<Method, WebhookListener> entry : found.entrySet()) {
            Method method = entry.getKey();
            if (method.getParameterCount() != 1) {
                throw new IllegalStateException("@WebhookListener method " + type.getName() + "." + method.getName()
                        + " must take exactly one parameter (the event)");
            }
            Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
            ReflectionUtils.makeAccessible(invocable);
            listeners.add(
                    new Registered(bean, invocable, Set.of(entry.getValue().types())));
        }
        return bean;
    }

    /** How many listener methods were found. */
    public int size() {
        return listeners.size();
    }

    /**
     * Runs every listener whose types match the delivery.
     *
     * @throws Exception what a listener threw (the receiver then answers {@code 500} and forgets the id)
     */
    public void dispatch(VerifiedWebhook webhook) throws Exception {
        JsonMapper json = mapper != null ? mapper : JsonMapper.shared();
        String type = null;
        boolean typeRead = false;
        for (Registered listener : listeners) {
            if (!listener.types().isEmpty()) {
                if (!typeRead) {
                    type = typeOf(json, webhook);
                    typeRead = true;
                }
                if (type == null || !listener.types().contains(type)) {
                    continue;
                }
            }
            invoke(listener, argument(json, listener.method().getParameterTypes()[0], webhook));
        }
    }

    private static @Nullable String typeOf(JsonMapper json, VerifiedWebhook webhook) {
        JsonNode type = json.readTree(webhook.body()).get("type");
        return type != null && type.isString() ? type.asString() : null;
    }

    private static Object argument(JsonMapper json, Class<?> parameter, VerifiedWebhook webhook) {
        if (parameter == VerifiedWebhook.class) {
            return webhook;
        }
        if (parameter == String.class) {
            return webhook.bodyAsString();
        }
        if (parameter == byte[].class) {
            return webhook.body();
        }
        return json.readValue(webhook.body(), parameter);
    }

    private static void invoke(Registered listener, Object argument) throws Exception {
        try {
            listener.method().invoke(listener.bean(), argument);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    private record Registered(Object bean, Method method, Set<String> types) {}
}
