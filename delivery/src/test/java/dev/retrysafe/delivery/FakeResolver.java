package dev.retrysafe.delivery;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A DNS that answers only what a test told it, and records every question: no test depends on,
 * or reaches, real DNS. Names it does not know do not resolve. Threadsafe.
 */
final class FakeResolver implements TargetGuard.Resolver {

    private final Map<String, List<InetAddress>> answers = new ConcurrentHashMap<>();
    private final List<String> questions = new CopyOnWriteArrayList<>();

    /** Answers {@code host} with these address literals from now on. */
    FakeResolver answer(String host, String... addresses) {
        List<InetAddress> list = new ArrayList<>();
        for (String address : addresses) {
            list.add(literal(address));
        }
        answers.put(host, List.copyOf(list));
        return this;
    }

    @Override
    public List<InetAddress> resolve(String host) throws UnknownHostException {
        questions.add(host);
        List<InetAddress> answer = answers.get(host);
        if (answer == null) {
            throw new UnknownHostException(host);
        }
        return answer;
    }

    /** Every name asked for, in order. */
    List<String> questions() {
        return List.copyOf(questions);
    }

    /** An address from a literal; a name here would be a test bug, so it fails rather than looks it up. */
    static InetAddress literal(String address) {
        if (!address.matches("[0-9a-fA-F:.]+")) {
            throw new IllegalArgumentException("not an address literal: " + address);
        }
        try {
            return InetAddress.getByName(address);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(address, e);
        }
    }
}
