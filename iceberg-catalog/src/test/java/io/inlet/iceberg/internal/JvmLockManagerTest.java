package io.inlet.iceberg.internal;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class JvmLockManagerTest {

    @Test
    void excludesOtherThreadsUntilReleasedAndSurvivesAnotherManagersClose() throws Exception {
        JvmLockManager a = new JvmLockManager();
        a.initialize(Map.of("lock.acquire-timeout-ms", "200"));
        JvmLockManager b = new JvmLockManager();
        b.initialize(Map.of("lock.acquire-timeout-ms", "200"));
        String table = "file:/wh/" + System.nanoTime();

        assertThat(a.acquire(table, "owner-a")).isTrue();
        assertThat(CompletableFuture.supplyAsync(() -> b.acquire(table, "owner-b"))
                        .get())
                .isFalse();
        b.close(); // another catalog closing must not break this one
        assertThat(CompletableFuture.supplyAsync(() -> b.release(table, "owner-b"))
                        .get())
                .isFalse();
        assertThat(a.release(table, "owner-a")).isTrue();
        assertThat(CompletableFuture.supplyAsync(() -> {
                            boolean got = b.acquire(table, "owner-b");
                            b.release(table, "owner-b");
                            return got;
                        })
                        .get())
                .isTrue();
    }
}
