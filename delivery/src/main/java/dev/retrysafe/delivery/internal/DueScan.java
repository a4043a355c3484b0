package dev.retrysafe.delivery.internal;

import dev.retrysafe.leasedwork.internal.Jdbc;
import dev.retrysafe.leasedwork.internal.Rows;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What one claim of the dispatcher takes: a keyset scan of due deliveries that fills each
 * endpoint only up to its in-flight cap (head-of-line isolation) and a rate-limited endpoint only
 * with the free slots of its look-ahead, then the rate slots reserved as compare-and-sets before
 * any delivery is claimed. The leases themselves are taken by the engine's
 * {@code LeaseSql.claimChosen}. Threadsafe (stateless between calls).
 */
final class DueScan {

    private final DispatcherConfig config;

    DueScan(DispatcherConfig config) {
        this.config = config;
    }

    /** Most rows read per chunk of the due scan. */
    private static final int SCAN_CHUNK = 500;
    /** Fewest rows read per chunk: a claim with room for a few still reads past a filled endpoint. */
    private static final int MIN_SCAN_CHUNK = 50;
    /** Chunks one claim reads at most: bounds the work when saturated endpoints have huge backlogs. */
    private static final int MAX_SCAN_CHUNKS = 20;

    /**
     * What one claim chose: the deliveries, and for endpoints with a rate limit the slots they
     * take (delivery id to epoch ns) and the reservations to make before claiming them.
     */
    record Choice(List<String> ids, Map<String, Long> slots, List<Reservation> reservations, boolean heldBack) {}

    /** Slots of one rate-limited endpoint taken by this claim. */
    private record Reservation(
            String endpointId, int rate, long readNextFree, long newNextFree, List<String> deliveries) {}

    /** One rate-limited endpoint while the claim scans: its window and the deliveries placed in it. */
    private static final class Pace {
        final int rate;
        final @Nullable Long readNextFree;
        final RatePacing.Window window;
        final List<String> deliveries = new ArrayList<>();

        Pace(int rate, @Nullable Long readNextFree, RatePacing.Window window) {
            this.rate = rate;
            this.readNextFree = readNextFree;
            this.window = window;
        }

        boolean full() {
            return deliveries.size() >= window.capacity();
        }
    }

    /** Rows per chunk of the due scan of a claim that may take {@code limit} deliveries. */
    static int scanChunk(int limit) {
        return Math.clamp(limit, MIN_SCAN_CHUNK, SCAN_CHUNK);
    }

    /**
     * Picks up to {@code limit} due deliveries, oldest first, filling each endpoint only up to
     * its cap minus the attempts already in flight to it (all instances), and a rate-limited one
     * only with the free slots of its look-ahead; ids returned in id order. Endpoints already at
     * their cap are left out by the database. The scan reads chunks of about {@code limit} rows
     * ({@link #scanChunk}) and goes on chunk by chunk while chunks yield picks: a chunk that
     * yields none holds only the backlogs of endpoints this claim filled, and reading on
     * (possibly through the whole backlog) would cost more than the next claim, which finds
     * those endpoints at their cap and leaves them out.
     */
    Choice choose(Connection c, Instant nowInstant, int limit) throws SQLException {
        long now = nowInstant.toEpochMilli();
        long nowNanos = EpochNanos.of(nowInstant);
        long lookahead = config.rateLookahead().toNanos();
        Map<String, Integer> busy = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement(DispatchSql.IN_FLIGHT_BY_ENDPOINT)) {
            s.setLong(1, now);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    busy.put(r.getString(1), r.getInt(2));
                }
            }
        }
        Object[] saturated = busy.entrySet().stream()
                .filter(e -> e.getValue() >= config.maxInFlightPerEndpoint())
                .map(Map.Entry::getKey)
                .toArray();
        java.sql.Array excluded = c.createArrayOf("VARCHAR", saturated);
        boolean heldBack = saturated.length > 0;
        Map<String, Pace> paces = new HashMap<>();
        Map<String, Long> slots = new HashMap<>();
        List<String> chosen = new ArrayList<>(limit);
        // a chunk as large as the claim's limit: a chunk of 500 when 100 may be taken made
        // PostgreSQL walk (and the dispatcher read) five times the rows a claim can use, and
        // PostgreSQL also walks the due rows of the left-out endpoints to find them
        int chunkSize = scanChunk(limit);
        @Nullable String lastId = null;
        long lastDue = 0;
        for (int chunk = 0; chunk < MAX_SCAN_CHUNKS && chosen.size() < limit; chunk++) {
            int read = 0;
            int picked = chosen.size();
            try (PreparedStatement s =
                    c.prepareStatement(lastId == null ? DispatchSql.DUE_FIRST : DispatchSql.DUE_AFTER)) {
                int i = 1;
                s.setLong(i++, now);
                s.setLong(i++, now);
                s.setLong(i++, nowNanos + lookahead);
                s.setArray(i++, excluded);
                if (lastId != null) {
                    s.setLong(i++, lastDue);
                    s.setLong(i++, lastDue);
                    s.setString(i++, lastId);
                }
                s.setInt(i, chunkSize);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        read++;
                        String id = r.getString(1);
                        String endpoint = r.getString(2);
                        lastId = id;
                        lastDue = r.getLong(3);
                        @Nullable Integer rate = Rows.integer(r, "rate_limit");
                        long nextFree = r.getLong("rate_next_slot_ns");
                        @Nullable Long readNextFree = r.wasNull() ? null : nextFree;
                        int inFlight = busy.getOrDefault(endpoint, 0);
                        if (inFlight >= config.maxInFlightPerEndpoint() || chosen.size() >= limit) {
                            heldBack = true;
                            continue;
                        }
                        if (rate != null) {
                            Pace pace = paces.computeIfAbsent(
                                    endpoint,
                                    k -> new Pace(
                                            rate,
                                            readNextFree,
                                            RatePacing.window(readNextFree, nowNanos, lookahead, rate)));
                            if (pace.full()) {
                                heldBack = true;
                                continue;
                            }
                            slots.put(id, pace.window.slot(pace.deliveries.size()));
                            pace.deliveries.add(id);
                        }
                        busy.put(endpoint, inFlight + 1);
                        chosen.add(id);
                    }
                }
            }
            if (read < chunkSize) {
                break;
            }
            heldBack = true; // rows past this chunk were not read
            if (chosen.size() == picked) {
                break;
            }
        }
        chosen.sort(null);
        List<Reservation> reservations = new ArrayList<>(paces.size());
        paces.forEach((endpoint, pace) -> {
            if (!pace.deliveries.isEmpty()) {
                reservations.add(new Reservation(
                        endpoint,
                        pace.rate,
                        pace.readNextFree == null ? -1 : pace.readNextFree,
                        pace.window.nextFreeAfter(pace.deliveries.size()),
                        List.copyOf(pace.deliveries)));
            }
        });
        reservations.sort(Comparator.comparing(Reservation::endpointId));
        return new Choice(chosen, slots, reservations, heldBack);
    }

    /**
     * Reserves the rate slots of the choice (one compare-and-set per rate-limited endpoint, in
     * endpoint id order, before any delivery is claimed) and answers the deliveries that may be
     * claimed: the choice without those of endpoints whose schedule another instance moved first.
     * A slot reserved for a delivery that is then not claimed (another instance took it) stays
     * unused: the rate can be undershot, never exceeded.
     */
    List<String> reserveRateSlots(Connection c, Choice choice) throws SQLException {
        if (choice.reservations().isEmpty()) {
            return choice.ids();
        }
        int[] moved;
        try (PreparedStatement s = c.prepareStatement(DispatchSql.RESERVE_RATE_SLOTS)) {
            for (Reservation r : choice.reservations()) {
                s.setLong(1, r.newNextFree());
                s.setString(2, r.endpointId());
                s.setInt(3, r.rate());
                s.setLong(4, r.readNextFree());
                s.addBatch();
            }
            moved = s.executeBatch();
        } catch (SQLException e) {
            if (!Jdbc.isTransientConflict(e)) {
                throw e;
            }
            moved = new int[choice.reservations().size()]; // a lock wait gave up: no slot is ours
        }
        Set<String> lost = new HashSet<>();
        for (int i = 0; i < moved.length; i++) {
            if (moved[i] == 0) {
                lost.addAll(choice.reservations().get(i).deliveries());
            }
        }
        if (lost.isEmpty()) {
            return choice.ids();
        }
        List<String> kept = new ArrayList<>(choice.ids().size());
        for (String id : choice.ids()) {
            if (!lost.contains(id)) {
                kept.add(id);
            }
        }
        return kept;
    }
}
