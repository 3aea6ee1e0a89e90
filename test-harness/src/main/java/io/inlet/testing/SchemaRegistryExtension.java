package io.inlet.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives tests a {@link SchemaRegistry}: one per test JVM, started on first use and stopped when all
 * tests have run. Declare a {@code SchemaRegistry} parameter in a class annotated {@code
 * @ExtendWith(SchemaRegistryExtension.class)}.
 */
public final class SchemaRegistryExtension implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == SchemaRegistry.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return registry(context);
    }

    public static SchemaRegistry registry(ExtensionContext context) {
        return SharedServices.get(context, SchemaRegistry.class, SchemaRegistry::start);
    }
}
