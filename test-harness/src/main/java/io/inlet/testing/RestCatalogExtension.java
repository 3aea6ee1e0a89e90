package io.inlet.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives tests a {@link RestCatalogServer} over the test JVM's {@link S3Server}: one per test JVM,
 * started on first use and stopped when all tests have run. Declare a {@code RestCatalogServer}
 * parameter in a class annotated {@code @ExtendWith(RestCatalogExtension.class)}; each test makes its
 * own namespaces.
 */
public final class RestCatalogExtension implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == RestCatalogServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        S3Server s3 = S3Extension.s3(context);
        return SharedServices.get(context, RestCatalogServer.class, () -> RestCatalogServer.start(s3));
    }
}
