package io.inlet.examples;

import io.inlet.annotation.PublicEvolving;
import io.inlet.core.InletValidationException;
import io.inlet.core.util.MiniJson;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A job's settings, from where each kind of Flink runtime passes them, later sources winning:
 *
 * <ol>
 *   <li>the defaults of the job;
 *   <li>the application properties that managed runtimes hand to the job as JSON (Amazon Managed
 *       Service for Apache Flink writes them to {@value #MANAGED_PROPERTIES_FILE}; another file is
 *       named with {@code --application-properties <file>}): each property group's keys, prefixed
 *       with the group id and a dot, except in the groups {@code inlet} and {@code
 *       FlinkApplicationProperties}, whose keys are taken as they are;
 *   <li>a properties file named with {@code --config <file>};
 *   <li>program arguments, as {@code --key value}, {@code --key=value} or {@code key=value}.
 * </ol>
 *
 * <p>A value {@code ${env:NAME}} is replaced by the environment variable {@code NAME}, so secrets
 * need not appear in program arguments (which Flink's web UI shows).
 *
 * <pre>{@code
 * flink run inlet-examples-mysql-iceberg-job.jar --source.hostname db --source.password '${env:MYSQL_PASSWORD}' ...
 * }</pre>
 */
@PublicEvolving
public final class JobSettings {

    /** Where Amazon Managed Service for Apache Flink puts an application's runtime properties. */
    public static final String MANAGED_PROPERTIES_FILE = "/etc/flink/application_properties.json";

    private static final Pattern ENV = Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)}");

    private final Map<String, String> values;
    private final List<String> origins;

    private JobSettings(Map<String, String> values, List<String> origins) {
        this.values = Collections.unmodifiableMap(new TreeMap<>(values));
        this.origins = List.copyOf(origins);
    }

    /** The settings of a job started with these arguments, over its defaults. */
    public static JobSettings of(String[] args, Map<String, String> defaults) {
        return of(args, defaults, Path.of(MANAGED_PROPERTIES_FILE), System::getenv);
    }

    static JobSettings of(String[] args, Map<String, String> defaults, Path managedFile, UnaryOperator<String> env) {
        Map<String, String> fromArgs = parseArgs(args);
        List<String> origins = new ArrayList<>();
        Map<String, String> values = new LinkedHashMap<>(defaults);

        String appProps = fromArgs.remove("application-properties");
        Path json = appProps != null ? Path.of(appProps) : managedFile;
        if (appProps != null || Files.isRegularFile(json)) {
            values.putAll(applicationProperties(json));
            origins.add("application properties " + json);
        }
        String config = fromArgs.remove("config");
        if (config != null) {
            values.putAll(propertiesFile(Path.of(config)));
            origins.add("properties file " + config);
        }
        values.putAll(fromArgs);
        if (!fromArgs.isEmpty()) {
            origins.add("program arguments");
        }
        values.replaceAll((k, v) -> substitute(k, v, env));
        return new JobSettings(values, origins);
    }

    private static Map<String, String> parseArgs(String[] args) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("--")) {
                String key = a.substring(2);
                int eq = key.indexOf('=');
                if (eq > 0) {
                    out.put(key.substring(0, eq), key.substring(eq + 1));
                } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                    out.put(key, args[++i]);
                } else {
                    throw new InletValidationException("Program argument --" + key + " has no value; pass --" + key
                            + " <value> or --" + key + "=<value>.");
                }
            } else if (a.indexOf('=') > 0) {
                out.put(a.substring(0, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
            } else {
                throw new InletValidationException(
                        "Program argument '" + a + "' is not a setting; pass --key value, --key=value or key=value.");
            }
        }
        return out;
    }

    /** The flattened property groups of a managed runtime's JSON file. */
    static Map<String, String> applicationProperties(Path file) {
        Object parsed;
        try {
            parsed = MiniJson.parse(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new InletValidationException(
                    "Cannot read the application properties " + file + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new InletValidationException(
                    "The application properties " + file + " are not valid JSON: " + e.getMessage(), e);
        }
        if (!(parsed instanceof List)) {
            throw new InletValidationException("The application properties " + file
                    + " must be a JSON array of {\"PropertyGroupId\": ..., \"PropertyMap\": {...}} objects.");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Object group : (List<?>) parsed) {
            Object id = group instanceof Map ? ((Map<?, ?>) group).get("PropertyGroupId") : null;
            Object map = group instanceof Map ? ((Map<?, ?>) group).get("PropertyMap") : null;
            if (!(id instanceof String) || !(map instanceof Map)) {
                throw new InletValidationException("The application properties " + file + " hold a group without a"
                        + " PropertyGroupId string and a PropertyMap object: " + group);
            }
            String prefix = "inlet".equals(id) || "FlinkApplicationProperties".equals(id) ? "" : id + ".";
            ((Map<?, ?>) map).forEach((k, v) -> out.put(prefix + k, v == null ? "" : String.valueOf(v)));
        }
        return out;
    }

    private static Map<String, String> propertiesFile(Path file) {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        } catch (IOException e) {
            throw new InletValidationException(
                    "Cannot read the properties file " + file + " (--config): " + e.getMessage(), e);
        }
        Map<String, String> out = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(k -> out.put(k, p.getProperty(k)));
        return out;
    }

    private static String substitute(String key, String value, UnaryOperator<String> env) {
        Matcher m = ENV.matcher(value);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String v = env.apply(m.group(1));
            if (v == null) {
                throw new InletValidationException(
                        "Setting '" + key + "' refers to the environment variable " + m.group(1)
                                + ", which is not set; set it for the Flink processes or give the value directly.");
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(v));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    /** These settings, with the given defaults for keys they do not have. */
    public JobSettings withDefaults(Map<String, String> defaults) {
        Map<String, String> merged = new LinkedHashMap<>(defaults);
        merged.putAll(values);
        return new JobSettings(merged, origins);
    }

    /** The value of a key, or null. */
    public String get(String key) {
        return values.get(key);
    }

    public String get(String key, String defaultValue) {
        return values.getOrDefault(key, defaultValue);
    }

    /** The value of a key that the job needs; the message says how to set it. */
    public String required(String key, String what) {
        String v = values.get(key);
        if (v == null || v.isEmpty()) {
            throw new InletValidationException("Setting '" + key + "' (" + what + ") is missing. Pass --" + key
                    + " <value>, or set it in the application properties.");
        }
        return v;
    }

    /** The entries under {@code prefix}, with the prefix removed. */
    public Map<String, String> withPrefix(String prefix) {
        Map<String, String> out = new LinkedHashMap<>();
        values.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.put(k.substring(prefix.length()), v);
            }
        });
        return out;
    }

    /** Every setting. */
    public Map<String, String> asMap() {
        return values;
    }

    /** Where the settings came from, for the job's log. */
    public List<String> origins() {
        return origins;
    }

    /** The keys only: values may be secrets. */
    @Override
    public String toString() {
        return "JobSettings" + values.keySet() + " from "
                + (origins.isEmpty() ? "defaults" : String.join(", ", origins));
    }
}
