package dev.retrysafe.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * A private Redis Cluster of masters without replicas, each a {@link RedisServerProcess} on free
 * loopback ports (client and cluster bus), for tests of what a Cluster changes: keys spread over
 * nodes, redirections, a node that dies. The slots are split evenly in node order, and
 * {@link #start} returns once every node reports {@code cluster_state:ok} with every node and
 * slot known (bounded by a deadline). Nothing is persisted; each node keeps its cluster
 * configuration ({@code nodes.conf}) in its own folder under one temporary folder, so a node
 * restarted with {@link RedisServerProcess#restart()} rejoins as the same node (empty).
 *
 * <p>{@code cluster-require-full-coverage no}: a master that dies leaves the others serving their
 * slots, as {@code docs/operations.md} advises for rate-limit counters. A missing
 * {@code redis-server} fails loudly. {@link #close()} kills every node and deletes the folder (a
 * JVM shutdown hook does too, should a test run end abruptly). This class is threadsafe.
 */
public final class RedisClusterProcess implements AutoCloseable {

    /** What the folder of every cluster made here starts with, followed by the JVM's pid and a dash. */
    public static final String DIR_PREFIX = "rs-redis-cluster-";

    private static final int SLOTS = 16_384;
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration JOIN_DEADLINE = Duration.ofSeconds(60);
    /** Long enough that a loaded machine's slow gossip never marks a live node as failed. */
    private static final Duration NODE_TIMEOUT = Duration.ofSeconds(15);

    private final Path dir;
    /** Filled while starting; a copy-on-write list, since the shutdown hook may read it meanwhile. */
    private final List<RedisServerProcess> nodes = new CopyOnWriteArrayList<>();

    private final List<Integer> busPorts = new CopyOnWriteArrayList<>();
    private final Thread shutdownHook;

    private RedisClusterProcess(Path dir) {
        this.dir = dir;
        this.shutdownHook = new Thread(this::stopAndDelete, "redis-cluster-" + dir.getFileName() + "-killer");
    }

    /** Starts three masters and joins them into one cluster. */
    public static RedisClusterProcess start() {
        return start(3);
    }

    /** Starts {@code masters} masters (at least one) and joins them into one cluster. */
    public static RedisClusterProcess start(int masters) {
        if (masters < 1) {
            throw new IllegalArgumentException("a cluster needs at least one master: " + masters);
        }
        Path dir;
        try {
            dir = Files.createTempDirectory(DIR_PREFIX + ProcessHandle.current().pid() + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a folder for a Redis Cluster", e);
        }
        RedisClusterProcess cluster = new RedisClusterProcess(dir);
        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        try {
            for (int i = 0; i < masters; i++) {
                int[] busPort = new int[1];
                cluster.nodes.add(RedisServerProcess.start(dir.resolve("node-" + i), () -> {
                    busPort[0] = LocalServers.freePort();
                    return clusterArguments(busPort[0]);
                }));
                cluster.busPorts.add(busPort[0]);
            }
            cluster.join();
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private static List<String> clusterArguments(int busPort) {
        return List.of(
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-port",
                Integer.toString(busPort),
                "--cluster-announce-ip",
                "127.0.0.1",
                "--cluster-node-timeout",
                Long.toString(NODE_TIMEOUT.toMillis()),
                "--cluster-require-full-coverage",
                "no");
    }

    /**
     * Gives every node its own configuration epoch and an even share of the slots, introduces them
     * to the first node, and waits until every node sees the whole cluster serving.
     */
    private void join() {
        for (int i = 0; i < nodes.size(); i++) {
            int first = SLOTS * i / nodes.size();
            int last = SLOTS * (i + 1) / nodes.size() - 1;
            // distinct epochs up front, as redis-cli --cluster create does, so no collision has to
            // be resolved by gossip before the slots settle
            call(i, "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
            call(i, "CLUSTER", "ADDSLOTSRANGE", Integer.toString(first), Integer.toString(last));
        }
        for (int i = 1; i < nodes.size(); i++) {
            call(
                    0,
                    "CLUSTER",
                    "MEET",
                    "127.0.0.1",
                    Integer.toString(nodes.get(i).port()),
                    Integer.toString(busPorts.get(i)));
        }
        awaitServing();
    }

    /**
     * Waits (bounded) until every node that runs reports {@code cluster_state:ok}, knows every
     * node and sees every slot served: after {@link #start}, and for tests after they moved slots.
     */
    public void awaitServing() {
        long deadline = System.nanoTime() + JOIN_DEADLINE.toNanos();
        String last = "";
        while (true) {
            boolean serving = true;
            for (int i = 0; i < nodes.size() && serving; i++) {
                if (!nodes.get(i).answersPing()) {
                    continue; // a node a test killed
                }
                Map<String, String> info = info(i);
                last = "node " + i + ": " + info;
                serving = "ok".equals(info.get("cluster_state"))
                        && Integer.toString(nodes.size()).equals(info.get("cluster_known_nodes"))
                        && Integer.toString(SLOTS).equals(info.get("cluster_slots_ok"));
            }
            if (serving) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("Redis Cluster in " + dir + " not serving within " + JOIN_DEADLINE
                        + "; last seen " + last + "\n" + logTails());
            }
            pause();
        }
    }

    /** The nodes, in the order of their slots. */
    public List<RedisServerProcess> nodes() {
        return List.copyOf(nodes);
    }

    /** {@code redis://127.0.0.1:<port>} of every node: the seeds a Cluster client starts from. */
    public List<String> uris() {
        return nodes.stream().map(RedisServerProcess::uri).toList();
    }

    /** {@code 127.0.0.1:<port>} of every node, comma-separated (as a {@code redis-cluster://} URL lists them). */
    public String hostsAndPorts() {
        return nodes.stream().map(node -> "127.0.0.1:" + node.port()).collect(Collectors.joining(","));
    }

    /** The cluster's own id of node {@code index} ({@code CLUSTER MYID}). */
    public String nodeId(int index) {
        return call(index, "CLUSTER", "MYID");
    }

    /**
     * The index of the node that serves {@code slot} now, as the first node that answers sees it
     * ({@code CLUSTER NODES}): a slot being migrated is still its source's until it is given away.
     */
    public int masterOf(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("no slot " + slot);
        }
        for (int i = 0; i < nodes.size(); i++) {
            if (!nodes.get(i).answersPing()) {
                continue;
            }
            for (String line : call(i, "CLUSTER", "NODES").split("\n")) {
                String[] fields = line.trim().split(" ");
                // <id> <ip:port@bus> <flags> <master> <ping> <pong> <epoch> <link> <slot or range>...
                for (int f = 8; f < fields.length; f++) {
                    if (fields[f].startsWith("[")) {
                        continue; // a migration under way: [slot->-id] or [slot-<-id]
                    }
                    String[] range = fields[f].split("-");
                    int first = Integer.parseInt(range[0]);
                    int last = range.length == 2 ? Integer.parseInt(range[1]) : first;
                    if (first <= slot && slot <= last) {
                        return indexOfPort(Integer.parseInt(
                                fields[1].substring(fields[1].indexOf(':') + 1, fields[1].indexOf('@'))));
                    }
                }
            }
            throw new IllegalStateException("no node of the cluster serves slot " + slot);
        }
        throw new IllegalStateException("no node of the cluster answers");
    }

    private int indexOfPort(int port) {
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).port() == port) {
                return i;
            }
        }
        throw new IllegalStateException("no node of this cluster on port " + port);
    }

    /** Node {@code index}'s {@code CLUSTER INFO}, field by field. */
    public Map<String, String> info(int index) {
        return call(index, "CLUSTER", "INFO")
                .lines()
                .map(line -> line.split(":", 2))
                .filter(parts -> parts.length == 2)
                .collect(Collectors.toMap(parts -> parts[0], parts -> parts[1].trim(), (a, b) -> b));
    }

    /** Kills every node and deletes the folder. */
    @Override
    public void close() {
        stopAndDelete();
        LocalServers.removeShutdownHook(shutdownHook);
    }

    private void stopAndDelete() {
        for (RedisServerProcess node : nodes) {
            node.close();
        }
        LocalServers.deleteTree(dir);
    }

    private String call(int index, String... command) {
        try {
            String reply = Resp.call(nodes.get(index).port(), COMMAND_TIMEOUT, command);
            if (reply == null) {
                throw new IllegalStateException(String.join(" ", command) + " answered nil on node " + index);
            }
            return reply;
        } catch (IOException e) {
            throw new IllegalStateException(
                    String.join(" ", command) + " failed on node " + index + " (port "
                            + nodes.get(index).port() + "): " + e.getMessage() + "\n"
                            + nodes.get(index).logTail(),
                    e);
        }
    }

    private String logTails() {
        StringBuilder tails = new StringBuilder();
        for (int i = 0; i < nodes.size(); i++) {
            tails.append("--- node ")
                    .append(i)
                    .append(" log:\n")
                    .append(nodes.get(i).logTail())
                    .append('\n');
        }
        return tails.toString();
    }

    private static void pause() {
        try {
            Thread.sleep(20); // polling interval of a bounded wait, not a wait for a state
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Redis Cluster", e);
        }
    }
}
