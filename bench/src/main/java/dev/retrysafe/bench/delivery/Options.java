package dev.retrysafe.bench.delivery;

import java.util.HashMap;
import java.util.Map;

/** {@code --name value} command-line options. Not threadsafe. */
final class Options {

    private final Map<String, String> values = new HashMap<>();

    Options(String[] args) {
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got '" + args[i] + "'");
            }
            values.put(args[i].substring(2), args[i + 1]);
        }
    }

    String string(String name) {
        String v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return v;
    }

    String string(String name, String otherwise) {
        return values.getOrDefault(name, otherwise);
    }

    int integer(String name, int otherwise) {
        return values.containsKey(name) ? Integer.parseInt(values.get(name)) : otherwise;
    }

    long longValue(String name) {
        return Long.parseLong(string(name));
    }

    double decimal(String name, double otherwise) {
        return values.containsKey(name) ? Double.parseDouble(values.get(name)) : otherwise;
    }
}
