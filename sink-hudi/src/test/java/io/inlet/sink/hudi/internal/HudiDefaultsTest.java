package io.inlet.sink.hudi.internal;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The record of a column's default in the Hudi table, as every writer subtask meets the change at once. */
class HudiDefaultsTest {

    @Test
    void writerSubtasksRecordingTheSameChangeAtOnceLeaveOneRecord(@TempDir Path table) throws Exception {
        String path = table.toUri().toString();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                done.add(pool.submit(() -> {
                    start.await();
                    HudiDefaults.record(path, HudiDefaults.Added.of("sta tus", "new", 42L), new Configuration(false));
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        List<HudiDefaults.Added> recorded = HudiDefaults.read(path, new Configuration(false));
        assertThat(recorded).hasSize(1);
        assertThat(recorded.get(0).column()).isEqualTo("sta tus");
        assertThat(recorded.get(0).order()).isEqualTo(42L);
        try (Stream<Path> files = Files.list(table.resolve(".hoodie/.aux/inlet-defaults"))) {
            // No temporary file left behind (the local file system's .crc files aside); any column name makes a
            // file name.
            assertThat(files.map(p -> p.getFileName().toString())
                            .filter(n -> !n.startsWith("."))
                            .collect(Collectors.toList()))
                    .containsExactly("73746120747573.pending");
        }
        HudiDefaults.markDone(path, "sta tus", new Configuration(false));
        assertThat(HudiDefaults.read(path, new Configuration(false)))
                .singleElement()
                .satisfies(a -> assertThat(a.done()).isTrue());
    }

    /**
     * A default marked given counts only for a job restored from a checkpoint that completed after the mark:
     * one restored from an earlier checkpoint (a rebuild that found none of the marking job's) rolls back the
     * instant that gave it, and gives it again. A job restoring nothing finds it given.
     */
    @Test
    void aDefaultMarkedGivenCountsOnlyForACheckpointAfterTheMark(@TempDir Path table) throws Exception {
        String path = table.toUri().toString();
        HudiDefaults.record(path, HudiDefaults.Added.of("status", "new", 42L), new Configuration(false));
        HudiDefaults.Added pending =
                HudiDefaults.read(path, new Configuration(false)).get(0);
        assertThat(pending.givenBefore(Long.MAX_VALUE)).isFalse();

        HudiDefaults.markDone(path, "status", new Configuration(false));
        long markedAt;
        try (Stream<Path> files = Files.list(table.resolve(".hoodie/.aux/inlet-defaults"))) {
            markedAt = Files.getLastModifiedTime(files.filter(p -> p.toString().endsWith(".done"))
                            .findFirst()
                            .orElseThrow())
                    .toMillis();
        }
        HudiDefaults.Added given =
                HudiDefaults.read(path, new Configuration(false)).get(0);
        assertThat(given.givenBefore(Long.MAX_VALUE))
                .as("a job that restores nothing")
                .isTrue();
        assertThat(given.givenBefore(markedAt + 1))
                .as("a checkpoint completed after the mark")
                .isTrue();
        assertThat(given.givenBefore(markedAt))
                .as("a checkpoint of the same instant")
                .isFalse();
        assertThat(given.givenBefore(markedAt - 60_000))
                .as("a checkpoint from before the mark")
                .isFalse();
        assertThat(given.givenBefore(Long.MIN_VALUE))
                .as("a checkpoint whose time is unknown")
                .isFalse();
    }
}
