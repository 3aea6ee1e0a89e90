package io.inlet.source.kafka.internal;

import io.inlet.annotation.Internal;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/** How to reach a Confluent-compatible schema registry: URLs, basic auth, TLS, retries. */
@Internal
public final class RegistrySettings implements Serializable {

    private static final long serialVersionUID = 1L;

    final List<String> urls;

    @Nullable
    final String basicAuthUserInfo;

    @Nullable
    final String truststoreLocation;

    @Nullable
    final String truststorePassword;

    @Nullable
    final String keystoreLocation;

    @Nullable
    final String keystorePassword;

    final int maxRetries;
    final long timeoutMillis;

    public RegistrySettings(
            String urls,
            @Nullable String basicAuthUserInfo,
            @Nullable String truststoreLocation,
            @Nullable String truststorePassword,
            @Nullable String keystoreLocation,
            @Nullable String keystorePassword,
            int maxRetries,
            long timeoutMillis) {
        List<String> list = new ArrayList<>();
        for (String u : urls.split(",")) {
            String t = u.trim().replaceAll("/+$", "");
            if (!t.isEmpty()) {
                list.add(t);
            }
        }
        this.urls = list;
        this.basicAuthUserInfo = basicAuthUserInfo;
        this.truststoreLocation = truststoreLocation;
        this.truststorePassword = truststorePassword;
        this.keystoreLocation = keystoreLocation;
        this.keystorePassword = keystorePassword;
        this.maxRetries = maxRetries;
        this.timeoutMillis = timeoutMillis;
    }

    /** The URLs, for messages; no credentials. */
    public String describe() {
        return String.join(",", urls).replaceAll("//[^/@]+@", "//");
    }
}
