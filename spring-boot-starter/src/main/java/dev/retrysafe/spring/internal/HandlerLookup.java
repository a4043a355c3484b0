package dev.retrysafe.spring.internal;

import dev.retrysafe.spring.Idempotent;
import dev.retrysafe.spring.RateLimited;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.context.ApplicationContext;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * Finds the handler method a request will go to, before the {@code DispatcherServlet} does, by
 * asking the application's handler mappings in their order, as the dispatcher will. The lookup
 * runs on a view of the request whose attributes are its own, so that nothing the mappings set
 * stays on the request. The result is kept on the request, so it is looked up once. Threadsafe.
 */
public final class HandlerLookup {

    private static final String ATTRIBUTE = HandlerLookup.class.getName() + ".route";
    private static final Object NONE = new Object();

    private final ApplicationContext context;
    private final Map<Method, Annotations> annotations = new ConcurrentHashMap<>();
    private volatile @Nullable List<HandlerMapping> mappings;

    /** Looks up in the handler mappings of {@code context}. */
    public HandlerLookup(ApplicationContext context) {
        this.context = context;
    }

    /** The route of {@code request}'s handler method, or {@code null} when it goes to none. */
    public @Nullable HandlerRoute route(HttpServletRequest request) {
        Object cached = request.getAttribute(ATTRIBUTE);
        if (cached != null) {
            return cached instanceof HandlerRoute route ? route : null;
        }
        HandlerRoute route = lookUp(request);
        request.setAttribute(ATTRIBUTE, route == null ? NONE : route);
        return route;
    }

    private @Nullable HandlerRoute lookUp(HttpServletRequest request) {
        OwnAttributes view = new OwnAttributes(request);
        ServletRequestPathUtils.parseAndCache(view);
        for (HandlerMapping mapping : mappings()) {
            HandlerExecutionChain chain;
            try {
                chain = mapping.getHandler(view);
            } catch (Exception e) {
                return null; // no match (405, 415, ...): the dispatcher answers it, Retrysafe has nothing to do
            }
            if (chain != null) {
                if (!(chain.getHandler() instanceof HandlerMethod method)) {
                    return null;
                }
                Object pattern = view.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
                Annotations found = annotations.computeIfAbsent(method.getMethod(), m -> Annotations.of(method));
                return new HandlerRoute(
                        pattern == null
                                ? ServletRequestPathUtils.getParsedRequestPath(view)
                                        .pathWithinApplication()
                                        .value()
                                : pattern.toString(),
                        found.idempotent(),
                        found.rateLimited());
            }
        }
        return null;
    }

    private List<HandlerMapping> mappings() {
        List<HandlerMapping> found = mappings;
        if (found == null) {
            List<HandlerMapping> all = new ArrayList<>(
                    BeanFactoryUtils.beansOfTypeIncludingAncestors(context, HandlerMapping.class, true, false)
                            .values());
            AnnotationAwareOrderComparator.sort(all);
            found = List.copyOf(all);
            mappings = found;
        }
        return found;
    }

    private record Annotations(
            @Nullable Idempotent idempotent, @Nullable RateLimited rateLimited) {
        static Annotations of(HandlerMethod method) {
            return new Annotations(find(method, Idempotent.class), find(method, RateLimited.class));
        }

        private static <A extends java.lang.annotation.Annotation> @Nullable A find(
                HandlerMethod method, Class<A> type) {
            A onMethod = AnnotatedElementUtils.findMergedAnnotation(method.getMethod(), type);
            return onMethod != null ? onMethod : AnnotatedElementUtils.findMergedAnnotation(method.getBeanType(), type);
        }
    }

    /** The request with attributes of its own on top of the request's: what is set here stays here. */
    private static final class OwnAttributes extends HttpServletRequestWrapper {
        private final Map<String, Object> set = new HashMap<>();
        private final Set<String> removed = new HashSet<>();

        OwnAttributes(HttpServletRequest request) {
            super(request);
        }

        @Override
        public @Nullable Object getAttribute(String name) {
            if (set.containsKey(name)) {
                return set.get(name);
            }
            return removed.contains(name) ? null : super.getAttribute(name);
        }

        @Override
        public Enumeration<String> getAttributeNames() {
            Set<String> names = new HashSet<>(Collections.list(super.getAttributeNames()));
            names.removeAll(removed);
            names.addAll(set.keySet());
            return Collections.enumeration(names);
        }

        @Override
        public void setAttribute(String name, @Nullable Object value) {
            if (value == null) {
                removeAttribute(name);
            } else {
                set.put(name, value);
                removed.remove(name);
            }
        }

        @Override
        public void removeAttribute(String name) {
            set.remove(name);
            removed.add(name);
        }
    }
}
