package dev.retrysafe.ratelimit.redis;

import static dev.retrysafe.ratelimit.redis.Charges.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyState;
import dev.retrysafe.ratelimit.redis.internal.DecideScript;
import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.RedisClusterProcess;
import io.lettuce.core.MigrateArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a Redis Cluster changes for the store, each test on a private cluster of three masters:
 * partitions spread over every master, a slot moved under a live store (an {@code ASK}, then a
 * {@code MOVED}), and a master that dies.
 */
class RedisClusterTest {

    private static final long QUOTA = 5;

    private RedisClusterProcess cluster;
    private TestRedis redis;
    private final List<RedisRateLimitStore> stores = new ArrayList<>();

    @BeforeEach
    void startCluster() {
        cluster = RedisClusterProcess.start();
        redis = TestRedis.connect(cluster);
    }

    @AfterEach
    void stopCluster() {
        try {
            stores.forEach(RedisRateLimitStore::close);
            redis.close();
        } finally {
            cluster.close();
        }
    }

    @Test
    void partitionsSpreadOverEveryMasterAndEachIsCountedExactly() throws Exception {
        // continuous algorithms on Redis's own clock: 5 an hour refill nothing within the test
        Policy gcra = policy("gcra", Algorithm.GCRA, QUOTA, Duration.ofHours(1));
        Policy bucket = policy("bucket", Algorithm.TOKEN_BUCKET, QUOTA, Duration.ofHours(1));
        List<String> partitions =
                IntStream.range(0, 48).mapToObj(i -> "a:acct_" + i).toList();
        int instances = 2;
        int threadsPerInstance = 3;
        int roundsPerThread = 2; // 12 attempts per partition for a quota of 5
        for (int i = 0; i < instances; i++) {
            stores.add(redis.store().commandTimeout(Duration.ofSeconds(5)).build());
        }
        ExecutorService pool = Executors.newFixedThreadPool(instances * threadsPerInstance);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<int[]>> workers = new ArrayList<>();
            for (RedisRateLimitStore store : stores) {
                for (int t = 0; t < threadsPerInstance; t++) {
                    workers.add(pool.submit(() -> {
                        start.await();
                        int[] allowed = new int[partitions.size()];
                        for (int round = 0; round < roundsPerThread; round++) {
                            for (int p = 0; p < partitions.size(); p++) {
                                Decision decision = store.decide(
                                        partitions.get(p),
                                        List.of(new Charge(gcra, "key-1", 1), new Charge(bucket, "key-1", 1)));
                                assertThat(decision.states())
                                        .extracting(PolicyState::known)
                                        .containsOnly(true);
                                if (decision instanceof Decision.Allowed) {
                                    allowed[p]++;
                                }
                            }
                        }
                        return allowed;
                    }));
                }
            }
            start.countDown();
            int[] allowed = new int[partitions.size()];
            for (Future<int[]> worker : workers) {
                int[] counted = worker.get(60, TimeUnit.SECONDS); // a worker's failure fails the test here
                for (int p = 0; p < allowed.length; p++) {
                    allowed[p] += counted[p];
                }
            }
            assertThat(allowed).as("allowed per partition").containsOnly((int) QUOTA);
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS))
                    .as("workers stopped")
                    .isTrue();
        }

        // every master holds some of the counters, each in the slot of its partition
        Set<String> found = new HashSet<>();
        for (int node = 0; node < cluster.nodes().size(); node++) {
            List<String> keys = redis.keysOn(cluster.nodes().get(node).uri());
            assertThat(keys).as("keys on master %d", node).isNotEmpty();
            for (String key : keys) {
                assertThat(cluster.masterOf(SlotHash.getSlot(key)))
                        .as("master of %s", key)
                        .isEqualTo(node);
            }
            found.addAll(keys);
        }
        assertThat(found).hasSize(2 * partitions.size()).containsExactlyInAnyOrderElementsOf(redis.keys());
    }

    @Test
    void aSlotMovedUnderALiveStoreKeepsItsCountsExact() {
        // all four algorithms in one decision, so window keys move with the base keys; frozen time
        List<Charge> all = Arrays.stream(Algorithm.values())
                .map(algorithm ->
                        new Charge(policy(algorithm.configName(), algorithm, QUOTA, Duration.ofHours(1)), "key-1", 1))
                .toList();
        List<Charge> gcraOnly = all.stream()
                .filter(c -> c.policy().algorithm() == Algorithm.GCRA)
                .toList();
        String partition = "a:moving";
        int slot = SlotHash.getSlot("{" + partition + "}");
        RedisRateLimitStore store = redis.storeAtTimeOf(new FakeClock()).build();
        stores.add(store);
        assertThat(remaining(store.decide(partition, all))).containsOnly(4L);
        assertThat(remaining(store.decide(partition, all))).containsOnly(3L);

        int source = cluster.masterOf(slot);
        int target = (source + 1) % cluster.nodes().size();
        String sourceId = cluster.nodeId(source);
        String targetId = cluster.nodeId(target);
        try (Node from = new Node(cluster.nodes().get(source).uri());
                Node to = new Node(cluster.nodes().get(target).uri())) {
            // the steps of redis-cli --cluster reshard, for one slot
            to.redis().clusterSetSlotImporting(slot, sourceId);
            from.redis().clusterSetSlotMigrating(slot, targetId);
            List<String> keys = from.redis().clusterGetKeysInSlot(slot, 100);
            assertThat(keys).as("keys in slot %d", slot).hasSize(all.size());
            assertThat(from.redis()
                            .migrate(
                                    "127.0.0.1",
                                    cluster.nodes().get(target).port(),
                                    0,
                                    5_000,
                                    MigrateArgs.Builder.keys(keys)))
                    .isEqualTo("OK");

            // mid-move, one key: the source answers ASK, and the target, which never ran the
            // script, answers NOSCRIPT to EVALSHA and decides on EVAL
            assertThat(to.redis().scriptExists(DecideScript.sha1())).containsExactly(false);
            assertThat(remaining(store.decide(partition, gcraOnly))).containsExactly(2L);
            assertThat(to.redis().scriptExists(DecideScript.sha1())).containsExactly(true);

            // mid-move, several keys of which some were never written (window keys are named by
            // the script): the target answers TRYAGAIN, the decision goes by the fail mode
            // uncounted, and the healthy source's breaker stays closed
            Decision refused = store.decide(partition, all);
            assertThat(refused).isInstanceOf(Decision.Allowed.class);
            assertThat(refused.states()).extracting(PolicyState::known).containsOnly(false);
            assertThat(store.breakerOpen()).isFalse();

            for (int node = 0; node < cluster.nodes().size(); node++) {
                try (Node each = new Node(cluster.nodes().get(node).uri())) {
                    each.redis().clusterSetSlotNode(slot, targetId);
                }
            }
        }
        cluster.awaitServing();
        assertThat(cluster.masterOf(slot)).isEqualTo(target);

        // the store's view may still name the source, which now answers MOVED: counts go on exactly
        assertThat(remaining(store.decide(partition, all))).containsExactly(1L, 2L, 2L, 2L);
        assertThat(remaining(store.decide(partition, all))).containsExactly(0L, 1L, 1L, 1L);
        Decision rejected = store.decide(partition, all);
        assertThat(rejected).isInstanceOf(Decision.Rejected.class);
        assertThat(((Decision.Rejected) rejected).refusedBy().policy().algorithm())
                .isEqualTo(Algorithm.GCRA);
        assertThat(redis.keysOn(cluster.nodes().get(source).uri())).isEmpty();
        assertThat(redis.keysOn(cluster.nodes().get(target).uri())).hasSize(all.size());
        assertThat(store.breakerOpen()).isFalse();
    }

    @Test
    void aDeadMasterFailsOnlyThePartitionsItServes() {
        Duration coolDown = Duration.ofSeconds(10);
        FakeClock breakerClock = new FakeClock();
        Policy open = policy("open", Algorithm.GCRA, 1_000, Duration.ofHours(1), FailMode.OPEN);
        Policy closed = policy("closed", Algorithm.GCRA, 1_000, Duration.ofHours(1), FailMode.CLOSED);
        RedisRateLimitStore store = redis.store()
                .commandTimeout(Duration.ofSeconds(2)) // the live masters' answers, on a busy machine too
                .circuitBreaker(3, coolDown)
                .breakerClock(breakerClock)
                .build();
        stores.add(store);
        int dead = 2;
        String onDead = partitionServedBy(dead);
        List<String> onLive = List.of(partitionServedBy(0), partitionServedBy(1));
        for (String partition : List.of(onDead, onLive.get(0), onLive.get(1))) {
            assertThat(decide(store, partition, open).states().getFirst().known())
                    .as(partition)
                    .isTrue();
        }

        cluster.nodes().get(dead).kill();
        try {
            // the dead master's partitions: by fail mode; its breaker opens after three failures
            for (int i = 0; i < 5; i++) {
                Decision decision = decide(store, onDead, open);
                assertThat(decision).isInstanceOf(Decision.Allowed.class);
                assertThat(decision.states().getFirst().known()).isFalse();
            }
            assertThat(decide(store, onDead, closed)).isInstanceOf(Decision.Unavailable.class);
            assertThat(store.breakerOpen()).isTrue();

            // the other masters' partitions are counted all along, far beyond three decisions
            for (int i = 0; i < 20; i++) {
                for (String partition : onLive) {
                    Decision decision = decide(store, partition, closed);
                    assertThat(decision).as(partition).isInstanceOf(Decision.Allowed.class);
                    assertThat(decision.states().getFirst().known())
                            .as(partition)
                            .isTrue();
                }
            }
        } finally {
            cluster.nodes().get(dead).restart(); // empty, but the same node: its nodes.conf survived
        }
        cluster.awaitServing();

        // each time the cool-down is over one probe goes to the master that is back
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    breakerClock.advance(coolDown);
                    return decide(store, onDead, open).states().getFirst().known();
                });
        assertThat(store.breakerOpen()).isFalse();
        assertThat(decide(store, onDead, closed)).isInstanceOf(Decision.Allowed.class);
    }

    @Test
    void theFirstDecisionOnEveryMasterAfterBuildingIsCounted() {
        Policy policy = policy("p", Algorithm.GCRA, 1, Duration.ofHours(1));
        // another store first loads the script on every master and warms this JVM's code up, so that
        // only the new store's connections remain to be had within the default timeout
        try (RedisRateLimitStore warm =
                redis.store().commandTimeout(Duration.ofSeconds(5)).build()) {
            for (int node = 0; node < cluster.nodes().size(); node++) {
                Policy other = policy("warm", Algorithm.GCRA, 1, Duration.ofHours(1)); // keys of its own
                assertThat(decide(warm, partitionServedBy(node), other)
                                .states()
                                .getFirst()
                                .known())
                        .isTrue();
            }
        }
        // the default command timeout: connections to the masters are made while building
        RedisRateLimitStore store = redis.store().build();
        stores.add(store);
        for (int node = 0; node < cluster.nodes().size(); node++) {
            assertThat(decide(store, partitionServedBy(node), policy)
                            .states()
                            .getFirst()
                            .known())
                    .as("first decision on master %d", node)
                    .isTrue();
        }
    }

    /** A partition whose keys are in a slot that node {@code node} serves. */
    private String partitionServedBy(int node) {
        for (int i = 0; ; i++) {
            String partition = "a:acct_" + i;
            if (cluster.masterOf(SlotHash.getSlot("{" + partition + "}")) == node) {
                return partition;
            }
        }
    }

    private static Decision decide(RedisRateLimitStore store, String partition, Policy policy) {
        return store.decide(partition, List.of(new Charge(policy, "key-1", 1)));
    }

    /** The remaining budget of each policy of a decision that Redis made (known). */
    private static List<Long> remaining(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Allowed.class);
        assertThat(decision.states()).extracting(PolicyState::known).containsOnly(true);
        return decision.states().stream().map(PolicyState::remaining).toList();
    }

    /** A plain connection to one node of the cluster, for the steps of a resharding. */
    private static final class Node implements AutoCloseable {

        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;

        Node(String uri) {
            client = RedisClient.create(uri);
            connection = client.connect();
            connection.setTimeout(Duration.ofSeconds(5));
        }

        RedisCommands<String, String> redis() {
            return connection.sync();
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
