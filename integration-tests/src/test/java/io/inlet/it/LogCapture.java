package io.inlet.it;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.layout.PatternLayout;

import java.io.StringWriter;
import java.util.UUID;

/**
 * Captures what every logger writes at a level and above while open, as {@code logger level
 * message} lines with stack traces; the root logger is lowered to that level meanwhile.
 */
final class LogCapture implements AutoCloseable {

    private final StringWriter text = new StringWriter();
    private final WriterAppender appender;
    private final LoggerConfig root;
    private final Level before;

    LogCapture(Level level) {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        appender = WriterAppender.createAppender(
                PatternLayout.newBuilder().withPattern("%c %p %m%n%throwable").build(),
                null,
                text,
                "capture-" + UUID.randomUUID(),
                false,
                true);
        appender.start();
        root = ctx.getConfiguration().getRootLogger();
        before = root.getLevel();
        root.addAppender(appender, level, null);
        if (before.isMoreSpecificThan(level)) {
            root.setLevel(level);
        }
        ctx.updateLoggers();
    }

    String text() {
        return text.toString();
    }

    @Override
    public void close() {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        root.removeAppender(appender.getName());
        root.setLevel(before);
        ctx.updateLoggers();
        appender.stop();
    }
}
