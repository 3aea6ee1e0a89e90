package io.inlet.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives tests a {@link KafkaBroker}: one per test JVM, started on first use and stopped when all
 * tests have run. Declare a {@code KafkaBroker} parameter in a class annotated {@code
 * @ExtendWith(KafkaExtension.class)}.
 */
public final class KafkaExtension implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == KafkaBroker.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return broker(context);
    }

    public static KafkaBroker broker(ExtensionContext context) {
        return SharedServices.get(context, KafkaBroker.class, KafkaBroker::start);
    }
}
