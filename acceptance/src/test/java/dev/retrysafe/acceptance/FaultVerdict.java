package dev.retrysafe.acceptance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.retrysafe.acceptance.FaultLoad.AttemptRecord;
import dev.retrysafe.acceptance.FaultLoad.KeyOutcome;
import dev.retrysafe.acceptance.FaultLoad.Kind;
import dev.retrysafe.acceptance.FaultLoad.ProbeAnswer;
import dev.retrysafe.acceptance.Faults.Fault;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The checks after a fault-injection run, against the database and the receivers, and the table
 * of figures they produce. Each check adds the figures it measured and, when an invariant does
 * not hold, a violation naming what broke. Not threadsafe.
 */
final class FaultVerdict {

    /** A receiver of the run and the event types its endpoint subscribed to ({@code *}: all). */
    record Subscriber(String name, WebhookReceiver receiver, Set<String> types) {
        boolean wants(String type) {
            return types.contains("*") || types.contains(type);
        }
    }

    /** After a fault is over, how long its effects may still show in answers sent before the recovery ended. */
    static final Duration GRACE = Duration.ofSeconds(2);
    /**
     * The documented bound of a fail-open policy's overshoot, in time: once Redis answers again,
     * every instance counts again within this (measured: 3.3-4.1 s; docs/operations.md).
     */
    static final Duration FAIL_OPEN_AFTER_REDIS = Duration.ofSeconds(10);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, String> figures = new java.util.LinkedHashMap<>();
    private final List<String> violations = new ArrayList<>();

    List<String> violations() {
        return List.copyOf(violations);
    }

    /** Adds a figure measured outside the checks. */
    void note(String name, Object value) {
        figure(name, value);
    }

    private void figure(String name, Object value) {
        figures.put(name, String.valueOf(value));
    }

    private void violation(String what) {
        violations.add(what);
    }

    private void expectZero(String name, long value, String explanation) {
        figure(name, value);
        if (value != 0) {
            violation(name + ": " + value + " (" + explanation + ")");
        }
    }

    /** Payments and refunds: one per key, none lost, refunded sums consistent. */
    void checkPayments(
            Connection c,
            String loadAccountId,
            Map<String, KeyOutcome> outcomes,
            Map<String, String> canaryIds,
            int reconciled)
            throws SQLException {
        Map<String, List<String>> paymentsByKey = new HashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT idempotency_key, id FROM payments WHERE account_id = '" + loadAccountId + "'")) {
            while (rs.next()) {
                paymentsByKey
                        .computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                        .add(rs.getString(2));
            }
        }
        long duplicates =
                paymentsByKey.values().stream().filter(l -> l.size() > 1).count();
        List<KeyOutcome> payments =
                outcomes.values().stream().filter(o -> o.kind() == Kind.PAYMENT).toList();
        long answered = payments.stream().filter(o -> o.id() != null).count();
        long lost = 0;
        List<String> lostKeys = new ArrayList<>();
        Map<String, String> seen = new HashMap<>(canaryIds);
        payments.stream().filter(o -> o.id() != null).forEach(o -> seen.put(o.key(), o.id()));
        for (Map.Entry<String, String> e : seen.entrySet()) {
            List<String> stored = paymentsByKey.getOrDefault(e.getKey(), List.of());
            if (!stored.contains(e.getValue())) {
                lost++;
                lostKeys.add(e.getKey());
            }
        }
        long unanswered = payments.stream().filter(KeyOutcome::gaveUp).count();
        long otherFinal =
                payments.stream().filter(o -> o.id() == null && !o.gaveUp()).count();
        Set<String> known = new HashSet<>(seen.keySet());
        payments.forEach(o -> known.add(o.key()));
        long strangers = paymentsByKey.keySet().stream()
                .filter(k -> !known.contains(k) && !k.startsWith("canary-"))
                .count();
        figure("payments answered 201", answered + " (+ " + canaryIds.size() + " recovery canaries)");
        figure("payment calls that gave up, then answered when called again with the same key", reconciled);
        expectZero(
                "duplicate payments (keys with more than one payment)",
                duplicates,
                "keys: "
                        + paymentsByKey.entrySet().stream()
                                .filter(e -> e.getValue().size() > 1)
                                .map(Map.Entry::getKey)
                                .limit(10)
                                .toList());
        expectZero(
                "lost payments (a 201 the client saw, not in the database)",
                lost,
                "keys: " + lostKeys.stream().limit(10).toList());
        expectZero("payment keys without a final answer after the run", unanswered, "the client could not get one");
        expectZero(
                "payments answered with a final error",
                otherFinal,
                "statuses: "
                        + payments.stream()
                                .filter(o -> o.id() == null && !o.gaveUp())
                                .map(KeyOutcome::status)
                                .distinct()
                                .toList());
        expectZero("payments nobody asked for (unknown key)", strangers, "keys not sent by the load");

        Map<String, Long> refundedByPayment = new HashMap<>();
        Set<String> refundIds = new HashSet<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, payment_id, amount FROM refunds")) {
            while (rs.next()) {
                refundIds.add(rs.getString(1));
                refundedByPayment.merge(rs.getString(2), rs.getLong(3), Long::sum);
            }
        }
        List<KeyOutcome> refunds =
                outcomes.values().stream().filter(o -> o.kind() == Kind.REFUND).toList();
        Set<String> answeredRefunds = refunds.stream()
                .map(KeyOutcome::id)
                .filter(java.util.Objects::nonNull)
                .collect(Collectors.toSet());
        figure(
                "refunds answered 201",
                answeredRefunds.size() + " ("
                        + refunds.stream().filter(o -> o.status() == 422).count()
                        + " refused 422: nothing left to refund)");
        Set<String> lostRefunds = new HashSet<>(answeredRefunds);
        lostRefunds.removeAll(refundIds);
        Set<String> extraRefunds = new HashSet<>(refundIds);
        extraRefunds.removeAll(answeredRefunds);
        expectZero(
                "lost refunds",
                lostRefunds.size(),
                "ids: " + lostRefunds.stream().limit(10).toList());
        expectZero(
                "duplicate refunds (made, but not the answer of any key)",
                extraRefunds.size(),
                "ids: " + extraRefunds.stream().limit(10).toList());
        long mismatched = 0;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, amount_refunded FROM payments")) {
            while (rs.next()) {
                if (rs.getLong(2) != refundedByPayment.getOrDefault(rs.getString(1), 0L)) {
                    mismatched++;
                }
            }
        }
        expectZero("payments whose amount_refunded is not the sum of their refunds", mismatched, "");
        expectZero(
                "refund keys without a final answer after the run",
                refunds.stream().filter(KeyOutcome::gaveUp).count(),
                "");
    }

    /**
     * Events: exactly one per payment, refund and finished report in the outbox; every event a
     * receiver subscribed to handled by it, and none handled twice under different message ids.
     */
    void checkEvents(Connection c, List<Subscriber> subscribers) throws Exception {
        Map<String, String> typeOf = new HashMap<>();
        Map<String, Integer> eventsPerObject = new HashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, type, data FROM events")) {
            while (rs.next()) {
                typeOf.put(rs.getString(1), rs.getString(2));
                String family = rs.getString(2).substring(0, rs.getString(2).indexOf('.'));
                if (Set.of("payment", "refund", "report").contains(family)) {
                    String object = JSON.readTree(rs.getString(3)).path("id").asText();
                    eventsPerObject.merge(family + ":" + object, 1, Integer::sum);
                }
            }
        }
        long objects = count(c, "SELECT COUNT(*) FROM payments")
                + count(c, "SELECT COUNT(*) FROM refunds")
                + count(c, "SELECT COUNT(*) FROM jobs WHERE status IN ('succeeded', 'failed')");
        long withEvent = eventsPerObject.size();
        figure("events in the outbox", typeOf.size());
        expectZero("payments, refunds and finished reports without their event", objects - withEvent, "outbox");
        expectZero(
                "objects with more than one event",
                eventsPerObject.values().stream().filter(n -> n > 1).count(),
                "duplicated in effect");

        long lost = 0;
        long twice = 0;
        long handled = 0;
        long redelivered = 0;
        for (Subscriber sub : subscribers) {
            Map<String, Integer> handledEvents = new HashMap<>();
            for (String body : sub.receiver().handled()) {
                JsonNode event = JSON.readTree(body);
                handledEvents.merge(event.path("id").asText(), 1, Integer::sum);
            }
            handled += handledEvents.size();
            redelivered += sub.receiver().duplicates();
            for (Map.Entry<String, String> e : typeOf.entrySet()) {
                if (sub.wants(e.getValue()) && !handledEvents.containsKey(e.getKey())) {
                    lost++;
                }
            }
            twice += handledEvents.values().stream().filter(n -> n > 1).count();
        }
        figure(
                "events handled by the receivers",
                handled + " (" + redelivered
                        + " redeliveries of handled messages acknowledged and skipped by the receivers)");
        expectZero("lost events (subscribed, committed, never handled)", lost, "at-least-once delivery");
        expectZero("events handled twice (under two message ids)", twice, "duplicated in effect");
        expectZero(
                "deliveries not succeeded",
                count(c, "SELECT COUNT(*) FROM deliveries WHERE status <> 'succeeded'"),
                "every receiver came back, so every delivery must end succeeded");
    }

    /** Reports: every accepted job finished once, with one result. */
    void checkJobs(Connection c, List<String> acceptedIds, int givenUp) throws SQLException {
        Map<String, String> status = new HashMap<>();
        long rerun = 0;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, status, attempts, error_type, error_detail FROM jobs")) {
            while (rs.next()) {
                // a job that did not succeed shows why, so that a failed run can be read from its log
                status.put(
                        rs.getString(1),
                        rs.getString(4) == null
                                ? rs.getString(2)
                                : rs.getString(2) + " (" + rs.getString(4) + ": " + rs.getString(5) + ", "
                                        + rs.getInt(3) + " attempts)");
                if (rs.getInt(3) > 1) {
                    rerun++;
                }
            }
        }
        Map<String, Integer> finishedEvents = new HashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT data FROM events WHERE type IN ('report.succeeded', 'report.failed')")) {
            while (rs.next()) {
                try {
                    finishedEvents.merge(
                            JSON.readTree(rs.getString(1)).path("id").asText(), 1, Integer::sum);
                } catch (java.io.IOException e) {
                    throw new SQLException("an event without JSON data", e);
                }
            }
        }
        figure(
                "reports accepted",
                acceptedIds.size() + " (+ " + givenUp + " calls that gave up; " + status.size()
                        + " jobs in the database)");
        figure("reports run again after losing their worker (kill, pause)", rerun);
        expectZero(
                "reports run twice (finished more than once)",
                finishedEvents.values().stream().filter(n -> n > 1).count(),
                "a report.* event per finish");
        expectZero(
                "accepted reports that did not succeed",
                acceptedIds.stream()
                        .filter(id -> !"succeeded".equals(status.get(id)))
                        .count(),
                "statuses: " + acceptedIds.stream().map(status::get).distinct().toList());
        expectZero(
                "succeeded reports without a result",
                count(
                        c,
                        "SELECT COUNT(*) FROM jobs j WHERE j.status ="
                                + " 'succeeded' AND NOT EXISTS (SELECT 1 FROM job_results r WHERE r.job_id = j.id)"),
                "");
    }

    /**
     * The shared rate limit, from the probe's answers: outside Redis outages no interval lets
     * through more than the burst plus the rate times its length (one unit of slack for
     * rounding), counting every request let through, counted or not; during an outage and its
     * recovery a fail-open policy lets everything through uncounted, which is reported against
     * what the limit would have allowed.
     */
    void checkRateLimit(List<ProbeAnswer> probes, List<Fault> faults, long quota, Duration window, long burst) {
        List<Fault> outages = faults.stream()
                .filter(f -> f.kind() == Faults.Kind.REDIS_OUTAGE)
                .toList();
        double perSecond = (double) quota / window.toSeconds();
        long uncountedInOutages = 0;
        List<ProbeAnswer> uncountedOutside = new ArrayList<>();
        double nominalDuringOutages = 0;
        for (Fault f : outages) {
            nominalDuringOutages += burst
                    + perSecond
                            * Duration.between(f.injectedAt(), f.recoveredAt()).toMillis()
                            / 1000.0;
        }
        // a restarted Redis starts empty: each stretch between Redis restarts is judged apart
        List<Instant> cuts = outages.stream().map(Fault::liftedAt).sorted().toList();
        Map<Integer, List<ProbeAnswer>> segments = new TreeMap<>();
        for (ProbeAnswer p : probes) {
            if (!p.allowed()) {
                continue;
            }
            if (!p.counted()) {
                if (outages.stream().anyMatch(f -> f.covers(p.sentAt(), GRACE) || f.covers(p.answeredAt(), GRACE))) {
                    uncountedInOutages++;
                    continue;
                }
                uncountedOutside.add(p);
            }
            int segment = 0;
            while (segment < cuts.size() && !p.answeredAt().isBefore(cuts.get(segment))) {
                segment++;
            }
            segments.computeIfAbsent(segment, k -> new ArrayList<>()).add(p);
        }
        double worst = 0;
        for (List<ProbeAnswer> segment : segments.values()) {
            List<ProbeAnswer> sorted = segment.stream()
                    .sorted(Comparator.comparing(ProbeAnswer::sentAt))
                    .toList();
            for (int i = 0; i < sorted.size(); i++) {
                for (int j = i; j < sorted.size(); j++) {
                    double seconds = Math.max(
                            0,
                            Duration.between(
                                                    sorted.get(i).sentAt(),
                                                    sorted.get(j).answeredAt())
                                            .toMillis()
                                    / 1000.0);
                    worst = Math.max(worst, (j - i + 1) - (burst + perSecond * seconds + 1));
                }
            }
        }
        figure(
                "rate-limit probe",
                probes.size() + " requests, "
                        + probes.stream()
                                .filter(p -> p.allowed() && p.counted())
                                .count() + " let through counted, "
                        + probes.stream().filter(p -> p.status() == 429).count()
                        + " refused 429; limit " + quota + " per " + window.toSeconds() + " s, burst " + burst);
        figure(
                "let through uncounted outside Redis outages (Redis slower than redis_timeout)",
                uncountedOutside.size());
        expectZero(
                "rate-limit overshoot outside Redis outages (requests over burst + rate x time, any interval)",
                (long) Math.ceil(worst),
                "uncounted ones: " + uncountedOutside.stream().limit(5).toList());
        figure(
                "rate-limit overshoot during Redis outages (fail open)",
                uncountedInOutages
                        + " let through uncounted, against " + Math.round(nominalDuringOutages)
                        + " the limit would have allowed"
                        + " in those windows (bound: every request sent from the outage until each instance counts again,"
                        + " at most " + FAIL_OPEN_AFTER_REDIS.toSeconds() + " s after Redis is back)");
        // the bound's time part: the breaker (open 2 s) lets one request try Redis, and a success counts again
        expectZero(
                "Redis outages after which an instance still let requests through uncounted more than "
                        + FAIL_OPEN_AFTER_REDIS.toSeconds() + " s",
                outages.stream()
                        .filter(f -> f.recovery().compareTo(FAIL_OPEN_AFTER_REDIS) > 0)
                        .count(),
                "recoveries: "
                        + outages.stream()
                                .map(f -> f.recovery().toMillis() + " ms")
                                .toList());
    }

    /** 5xx answers: each must fall within a fault that explains it; 500 never does. */
    void checkServerErrors(List<AttemptRecord> attempts, List<Fault> faults, List<String> internalErrorLogLines) {
        Map<Integer, Long> byStatus = new TreeMap<>();
        Map<Faults.Kind, Map<Integer, Long>> expected = new EnumMap<>(Faults.Kind.class);
        List<String> unexpected = new ArrayList<>();
        long noAnswer = 0;
        for (AttemptRecord a : attempts) {
            if (a.status() < 0) {
                noAnswer++;
                continue;
            }
            if (a.status() < 500) {
                continue;
            }
            byStatus.merge(a.status(), 1L, Long::sum);
            Fault explaining = faults.stream()
                    .filter(f -> f.covers(a.at(), GRACE) && f.kind().expected5xx.contains(a.status()))
                    .findFirst()
                    .orElse(null);
            if (explaining == null) {
                unexpected.add(a.status() + " to a " + a.kind().name().toLowerCase(Locale.ROOT) + " request at "
                        + a.at() + " (faults then: "
                        + faults.stream()
                                .filter(f -> f.covers(a.at(), GRACE))
                                .map(f -> "#" + f.number() + " " + f.kind().label)
                                .toList()
                        + ")");
            } else {
                expected.computeIfAbsent(explaining.kind(), k -> new TreeMap<>())
                        .merge(a.status(), 1L, Long::sum);
            }
        }
        figure(
                "requests sent (attempts, all through nginx)",
                attempts.size() + " ("
                        + attempts.stream()
                                .collect(Collectors.groupingBy(
                                        a -> a.kind().name().toLowerCase(Locale.ROOT),
                                        TreeMap::new,
                                        Collectors.counting()))
                        + "); " + noAnswer + " attempts without an answer"
                        + " (timeout, reset), all retried or counted above");
        figure(
                "5xx answers",
                byStatus.values().stream().mapToLong(Long::longValue).sum() + " " + byStatus);
        figure(
                "5xx answers explained by a fault",
                expected.entrySet().stream()
                        .map(e -> e.getKey().label + ": " + e.getValue())
                        .toList());
        expectZero(
                "5xx answers no fault explains",
                unexpected.size(),
                String.join("; ", unexpected.stream().limit(10).toList()));
        expectZero(
                "internal errors logged by the instances",
                internalErrorLogLines.size(),
                String.join("\n", internalErrorLogLines.stream().limit(5).toList()));
    }

    /** The table of figures and the table of faults, in Markdown. */
    String table(List<Fault> faults, String title) {
        StringBuilder sb = new StringBuilder("### ").append(title).append("\n\n| measure | value |\n|---|---|\n");
        Map<Faults.Kind, Long> kinds = faults.stream()
                .collect(Collectors.groupingBy(
                        Fault::kind, () -> new EnumMap<>(Faults.Kind.class), Collectors.counting()));
        sb.append("| faults injected | ")
                .append(faults.size())
                .append(": ")
                .append(kinds.entrySet().stream()
                        .map(e -> e.getValue() + " x " + e.getKey().label)
                        .collect(Collectors.joining(", ")))
                .append(" |\n");
        figures.forEach((k, v) -> sb.append("| ")
                .append(k)
                .append(" | ")
                .append(v.replace("|", "/"))
                .append(" |\n"));
        sb.append("\n| # | fault | target | held | recovery after it was lifted |\n|---|---|---|---|---|\n");
        for (Fault f : faults) {
            sb.append("| ")
                    .append(f.number())
                    .append(" | ")
                    .append(f.kind().label)
                    .append(" | ")
                    .append(f.target())
                    .append(" | ")
                    .append(seconds(f.held()))
                    .append(" | ")
                    .append(seconds(f.recovery()))
                    .append(" |\n");
        }
        Map<Faults.Kind, List<Duration>> recoveries = faults.stream()
                .collect(Collectors.groupingBy(
                        Fault::kind,
                        () -> new EnumMap<>(Faults.Kind.class),
                        Collectors.mapping(Fault::recovery, Collectors.toList())));
        sb.append("\n| fault | count | recovery median | recovery max |\n|---|---|---|---|\n");
        recoveries.forEach((kind, list) -> {
            List<Duration> sorted = list.stream().sorted().toList();
            sb.append("| ")
                    .append(kind.label)
                    .append(" | ")
                    .append(sorted.size())
                    .append(" | ")
                    .append(seconds(sorted.get(sorted.size() / 2)))
                    .append(" | ")
                    .append(seconds(sorted.getLast()))
                    .append(" |\n");
        });
        sb.append("\nviolations: ")
                .append(violations.isEmpty() ? "none" : String.join("\n- ", violations))
                .append('\n');
        return sb.toString();
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }

    private static long count(Connection c, String sql) throws SQLException {
        return Queries.count(c, sql);
    }
}
