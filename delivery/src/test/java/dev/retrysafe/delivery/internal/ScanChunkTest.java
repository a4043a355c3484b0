package dev.retrysafe.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How many due rows a claim reads per chunk of its scan. */
class ScanChunkTest {

    @ParameterizedTest
    @CsvSource({"100, 100", "64, 64", "499, 499", "500, 500"})
    void aClaimReadsChunksAsLargeAsWhatItMayTake(int limit, int chunk) {
        assertThat(DueScan.scanChunk(limit)).isEqualTo(chunk);
    }

    @ParameterizedTest
    @CsvSource({"1, 50", "2, 50", "49, 50", "50, 50"})
    void aClaimWithRoomForAFewStillReadsPastAFilledEndpoint(int limit, int chunk) {
        assertThat(DueScan.scanChunk(limit)).isEqualTo(chunk);
    }

    @ParameterizedTest
    @CsvSource({"501, 500", "1000, 500", "10000, 500"})
    void aChunkNeverExceedsFiveHundredRows(int limit, int chunk) {
        assertThat(DueScan.scanChunk(limit)).isEqualTo(chunk);
    }
}
