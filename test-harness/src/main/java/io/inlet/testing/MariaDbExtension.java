package io.inlet.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives tests a {@link MariaDbServer}: one per test JVM, started on first use and stopped when all
 * tests have run. Declare a {@code MariaDbServer} parameter (on a test method, a lifecycle method or
 * the constructor) of a class annotated {@code @ExtendWith(MariaDbExtension.class)}.
 */
public final class MariaDbExtension implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == MariaDbServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return server(context);
    }

    /** The shared server, started when first asked for. */
    public static MariaDbServer server(ExtensionContext context) {
        return SharedServices.get(context, MariaDbServer.class, MariaDbServer::start);
    }
}
