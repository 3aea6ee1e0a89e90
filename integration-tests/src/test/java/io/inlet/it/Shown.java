package io.inlet.it;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.test.junit5.MiniClusterExtension;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What users and operators see of a job and its failures, where a secret must never be: the job's
 * configuration and plan as Flink's REST API (and web UI) shows them, and an exception's whole stack
 * trace with every cause.
 */
final class Shown {

    private Shown() {}

    /** The job's configuration and its plan (operator names and descriptions), as the REST API answers. */
    static String job(MiniClusterExtension cluster, JobID job) throws Exception {
        String config = restGet(cluster, "/jobs/" + job + "/config");
        assertThat(config).contains("execution-config");
        return config + "\n" + restGet(cluster, "/jobs/" + job + "/plan");
    }

    static String restGet(MiniClusterExtension cluster, String path) throws Exception {
        Configuration client = cluster.getClientConfiguration();
        URI uri = URI.create("http://" + client.get(RestOptions.ADDRESS) + ":" + client.get(RestOptions.PORT) + path);
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET %s: %s", uri, r.body()).isEqualTo(200);
        return r.body();
    }

    /** The exception's stack trace with its causes and suppressed exceptions, as a log shows it. */
    static String stackTrace(Throwable e) {
        StringWriter w = new StringWriter();
        e.printStackTrace(new PrintWriter(w));
        return w.toString();
    }
}
