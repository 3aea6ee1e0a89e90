package io.inlet.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives tests a {@link HiveMetastoreServer} over the test JVM's {@link S3Server}: one per test JVM,
 * started on first use and stopped when all tests have run. Declare a {@code HiveMetastoreServer}
 * parameter in a class annotated {@code @ExtendWith(HiveMetastoreExtension.class)}; each test makes its
 * own namespaces.
 */
public final class HiveMetastoreExtension implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == HiveMetastoreServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        S3Server s3 = S3Extension.s3(context);
        return SharedServices.get(context, HiveMetastoreServer.class, () -> HiveMetastoreServer.start(s3));
    }
}
