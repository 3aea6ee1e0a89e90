package io.inlet.testing.hive;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStore;
import org.apache.hadoop.hive.metastore.IHMSHandler;
import org.apache.hadoop.hive.metastore.RetryingHMSHandler;
import org.apache.hadoop.hive.metastore.TSetIpAddressProcessor;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;
import org.apache.hadoop.hive.metastore.txn.TxnDbUtil;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TTransportFactory;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Runs Hive's metastore, in the test harness's own JVM for it, on 127.0.0.1.
 *
 * <p>Arguments: the port, then a properties file with the metastore's configuration (its Derby
 * database, warehouse and the S3A settings of the file system under it). {@code HiveMetaStore.main}
 * serves the same handler but binds every interface, and Hive 3.1 has no setting for the address;
 * the harness binds nothing beyond the loopback.
 */
public final class HiveMetastoreLauncher {

    private HiveMetastoreLauncher() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("Usage: HiveMetastoreLauncher <port> <configuration properties file>");
        }
        int port = Integer.parseInt(args[0]);
        Properties file = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(args[1]))) {
            file.load(in);
        }
        Configuration conf = MetastoreConf.newMetastoreConf();
        file.stringPropertyNames().forEach(k -> conf.set(k, file.getProperty(k)));
        // The transaction tables, which the clients' table locks (Iceberg's commits) need. The schema made
        // on first use has only the catalog's tables; 'hive.in.test' would make these too, but then also
        // refuses every real client (a capability check, and Iceberg's locks as a "Bug: operationType=UNSET").
        TxnDbUtil.prepDb(conf);

        // As HiveMetaStore.startMetaStore does, less the address: a retrying handler (it opens the
        // database and creates the schema), the processor that records each client's address, and a
        // plain binary Thrift transport (no SASL, not framed: the clients' defaults).
        IHMSHandler handler =
                RetryingHMSHandler.getProxy(conf, new HiveMetaStore.HMSHandler("inlet-harness", conf, false), false);
        TServerSocket socket = new TServerSocket(new InetSocketAddress("127.0.0.1", port));
        TThreadPoolServer server = new TThreadPoolServer(new TThreadPoolServer.Args(socket)
                .processor(new TSetIpAddressProcessor<>(handler))
                .transportFactory(new TTransportFactory())
                .protocolFactory(new TBinaryProtocol.Factory())
                .minWorkerThreads(2)
                .maxWorkerThreads(64));
        System.out.println("Hive Metastore listening on thrift://127.0.0.1:" + port);
        server.serve();
    }
}
