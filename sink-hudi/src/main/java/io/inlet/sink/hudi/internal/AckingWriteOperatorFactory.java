package io.inlet.sink.hudi.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.operators.coordination.OperatorCoordinator;
import org.apache.flink.streaming.api.operators.AbstractUdfStreamOperator;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.CoordinatedOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.SimpleUdfStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;
import org.apache.hudi.sink.common.WriteOperatorFactory;

/**
 * Hudi's write operator factory with its coordinator wrapped in an {@link AckingWriteCoordinator}.
 * The operator, its chaining and its state are Hudi's, unchanged: only the coordinator differs, and
 * it keeps Hudi's coordinator state, so savepoints move between jobs with and without it.
 */
@Internal
public final class AckingWriteOperatorFactory<I> extends SimpleUdfStreamOperatorFactory<Object>
        implements CoordinatedOperatorFactory<Object>, OneInputStreamOperatorFactory<I, Object> {

    private static final long serialVersionUID = 1L;

    private final WriteOperatorFactory<I> hudi;

    @SuppressWarnings("unchecked")
    AckingWriteOperatorFactory(WriteOperatorFactory<I> hudi) {
        // The same operator instance as Hudi's factory: chaining strategy and user function read the same.
        super((AbstractUdfStreamOperator<Object, ?>) hudi.getOperator());
        this.hudi = hudi;
    }

    // What the task hands a factory before it creates the operator goes to Hudi's factory, which
    // creates it.

    @Override
    public void setProcessingTimeService(ProcessingTimeService processingTimeService) {
        super.setProcessingTimeService(processingTimeService);
        hudi.setProcessingTimeService(processingTimeService);
    }

    @Override
    public void setMailboxExecutor(MailboxExecutor mailboxExecutor) {
        super.setMailboxExecutor(mailboxExecutor);
        hudi.setMailboxExecutor(mailboxExecutor);
    }

    @Override
    public void setChainingStrategy(ChainingStrategy strategy) {
        super.setChainingStrategy(strategy);
        hudi.setChainingStrategy(strategy);
    }

    @Override
    public <T extends StreamOperator<Object>> T createStreamOperator(StreamOperatorParameters<Object> parameters) {
        // Hudi's factory wires the operator to its event gateway; nothing to add.
        return hudi.createStreamOperator(parameters);
    }

    @Override
    public OperatorCoordinator.Provider getCoordinatorProvider(String operatorName, OperatorID operatorID) {
        return new AckingWriteCoordinator.Provider(hudi.getCoordinatorProvider(operatorName, operatorID));
    }

    /** Hudi's factory, wrapped. */
    WriteOperatorFactory<I> hudi() {
        return hudi;
    }
}
