package io.inlet.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives tests an {@link S3Server}: one per test JVM, started on first use and stopped when all tests
 * have run. Declare an {@code S3Server} parameter in a class annotated {@code
 * @ExtendWith(S3Extension.class)}; each test makes its own bucket.
 */
public final class S3Extension implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == S3Server.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return s3(context);
    }

    public static S3Server s3(ExtensionContext context) {
        return SharedServices.get(context, S3Server.class, S3Server::start);
    }
}
