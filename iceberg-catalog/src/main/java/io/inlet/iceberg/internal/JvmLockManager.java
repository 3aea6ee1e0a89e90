package io.inlet.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.LockManager;
import org.apache.iceberg.util.PropertyUtil;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The lock that serializes Hadoop-catalog commits of one table within a JVM, set as the catalog's
 * {@code lock-impl}.
 *
 * <p>Iceberg's default in-memory lock manager keeps its heartbeat scheduler in a static field and
 * shuts it down whenever any catalog in the JVM is closed. A job with several tables runs several
 * committers in one task manager; when one closes its catalog (a finished stop-with-savepoint, a
 * restart) while another commits, that commit fails with RejectedExecutionException. This lock
 * needs no background thread: the commit takes and releases it in one thread, around the rename of
 * the new metadata file.
 */
@Internal
public final class JvmLockManager implements LockManager {

    private static final Map<String, ReentrantLock> LOCKS = new ConcurrentHashMap<>();

    private long acquireTimeoutMs = CatalogProperties.LOCK_ACQUIRE_TIMEOUT_MS_DEFAULT;

    @Override
    public void initialize(Map<String, String> properties) {
        acquireTimeoutMs = PropertyUtil.propertyAsLong(
                properties,
                CatalogProperties.LOCK_ACQUIRE_TIMEOUT_MS,
                CatalogProperties.LOCK_ACQUIRE_TIMEOUT_MS_DEFAULT);
    }

    @Override
    public boolean acquire(String entityId, String ownerId) {
        try {
            return LOCKS.computeIfAbsent(entityId, k -> new ReentrantLock())
                    .tryLock(acquireTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean release(String entityId, String ownerId) {
        ReentrantLock lock = LOCKS.get(entityId);
        if (lock == null || !lock.isHeldByCurrentThread()) {
            return false;
        }
        lock.unlock();
        return true;
    }

    @Override
    public void close() {
        // Nothing to stop: no threads, and the locks belong to the JVM, not to one catalog.
    }
}
