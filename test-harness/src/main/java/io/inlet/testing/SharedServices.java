package io.inlet.testing;

import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.function.Supplier;

/**
 * One instance of each server per test JVM, kept in JUnit's root store so that it is closed when
 * all tests have run. A server that failed to start is not retried for every test: each test that
 * asks for it fails with the first start's failure, which carries the server's log.
 */
final class SharedServices {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(SharedServices.class);

    private SharedServices() {}

    static <T extends ExtensionContext.Store.CloseableResource> T get(
            ExtensionContext context, Class<T> type, Supplier<T> starter) {
        Holder holder =
                context.getRoot().getStore(NS).getOrComputeIfAbsent(type, k -> Holder.start(starter), Holder.class);
        if (holder.failure != null) {
            throw new IllegalStateException(
                    type.getSimpleName() + " could not be started: " + holder.failure.getMessage(), holder.failure);
        }
        return type.cast(holder.service);
    }

    private static final class Holder implements ExtensionContext.Store.CloseableResource {
        private final ExtensionContext.Store.CloseableResource service;
        private final RuntimeException failure;

        private Holder(ExtensionContext.Store.CloseableResource service, RuntimeException failure) {
            this.service = service;
            this.failure = failure;
        }

        static Holder start(Supplier<? extends ExtensionContext.Store.CloseableResource> starter) {
            try {
                return new Holder(starter.get(), null);
            } catch (RuntimeException e) {
                return new Holder(null, e);
            }
        }

        @Override
        public void close() throws Throwable {
            if (service != null) {
                service.close();
            }
        }
    }
}
