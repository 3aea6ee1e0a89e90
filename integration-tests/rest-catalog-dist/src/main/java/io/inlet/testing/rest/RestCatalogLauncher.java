package io.inlet.testing.rest;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Runs Iceberg's REST catalog server, in the test harness's own JVM for it, on 127.0.0.1.
 *
 * <p>Arguments: the port, then a properties file with the backing catalog's properties ({@code
 * catalog-impl}, {@code uri}, {@code warehouse}, {@code io-impl}, {@code s3.*} ...). Iceberg's
 * {@code RESTCatalogServer} does the same from environment variables but binds every interface; the
 * harness binds nothing beyond the loopback.
 */
public final class RestCatalogLauncher {

    private RestCatalogLauncher() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("Usage: RestCatalogLauncher <port> <catalog properties file>");
        }
        int port = Integer.parseInt(args[0]);
        Properties file = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(args[1]))) {
            file.load(in);
        }
        Map<String, String> properties = new HashMap<>();
        file.stringPropertyNames().forEach(k -> properties.put(k, file.getProperty(k)));
        Catalog backend = CatalogUtil.buildIcebergCatalog("rest_backend", properties, new Configuration());

        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.addServlet(new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(backend))), "/*");
        server.setHandler(context);
        server.start();
        System.out.println("Iceberg REST catalog listening on http://127.0.0.1:" + port);
        server.join();
    }
}
