package org.apache.flink.runtime.util;

import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.util.FlinkRuntimeException;
import org.apache.flink.util.Preconditions;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.TokenIdentifier;
import org.apache.hadoop.util.VersionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;

/**
 * Inlet's stand-in for Flink 1.17's {@code org.apache.flink.runtime.util.HadoopUtils}, for job jars
 * that run where the Flink runtime has no Hadoop (managed and serverless Flink).
 *
 * <p>Iceberg's {@code FlinkCatalogFactory.clusterHadoopConf()} calls {@link
 * #getHadoopConfiguration}. Flink's own class lives in the runtime's class loader, which cannot see
 * Hadoop, so the call fails with {@code NoClassDefFoundError: org/apache/hadoop/conf/Configuration}
 * even when the job jar bundles Hadoop. A class of the same name in the job jar alone changes
 * nothing, because {@code org.apache.flink.} is always loaded parent-first. It takes effect together
 * with two shade relocations in the job jar, which move this class and Hadoop out of those packages
 * and rewrite the bundled Iceberg classes to call them:
 *
 * <pre>{@code
 * <relocation>
 *   <pattern>org.apache.flink.runtime.util.HadoopUtils</pattern>
 *   <shadedPattern>io.inlet.shaded.org.apache.flink.runtime.util.HadoopUtils</shadedPattern>
 * </relocation>
 * <relocation>
 *   <pattern>org.apache.hadoop</pattern>
 *   <shadedPattern>io.inlet.shaded.org.apache.hadoop</shadedPattern>
 * </relocation>
 * }</pre>
 *
 * <p>{@link #getHadoopConfiguration} returns an empty Hadoop configuration (no {@code *-default.xml}
 * or {@code *-site.xml} from the class path, no {@code HADOOP_CONF_DIR}) holding only the Flink
 * configuration's {@code flink.hadoop.*} entries, so what a catalog sees is what the job states.
 * Every other public method of Flink's class is kept with its behaviour, so that callers such as
 * {@code HadoopFSDelegationTokenProvider} still link when this class is found first.
 */
public class HadoopUtils {

    private static final Logger LOG = LoggerFactory.getLogger(HadoopUtils.class);

    static final Text HDFS_DELEGATION_TOKEN_KIND = new Text("HDFS_DELEGATION_TOKEN");

    /** The prefix of Flink configuration keys copied into the Hadoop configuration, as in Flink. */
    private static final String FLINK_HADOOP_PREFIX = "flink.hadoop.";

    /**
     * An empty Hadoop configuration with the {@code flink.hadoop.*} entries of the given Flink
     * configuration, prefix removed.
     */
    public static Configuration getHadoopConfiguration(
            org.apache.flink.configuration.Configuration flinkConfiguration) {
        // false: no default resources, so nothing depends on which Hadoop XML files the class path has.
        Configuration result = new Configuration(false);
        for (String key : flinkConfiguration.keySet()) {
            if (key.startsWith(FLINK_HADOOP_PREFIX)) {
                String value = flinkConfiguration.getString(key, null);
                if (value != null) {
                    result.set(key.substring(FLINK_HADOOP_PREFIX.length()), value);
                }
            }
        }
        return result;
    }

    public static boolean isKerberosSecurityEnabled(UserGroupInformation ugi) {
        return UserGroupInformation.isSecurityEnabled()
                && ugi.getAuthenticationMethod() == UserGroupInformation.AuthenticationMethod.KERBEROS;
    }

    public static boolean areKerberosCredentialsValid(UserGroupInformation ugi, boolean useTicketCache) {
        Preconditions.checkState(isKerberosSecurityEnabled(ugi));
        // As in Flink: UGI#hasKerberosCredentials is wrong for keytab logins, so only the ticket cache is checked.
        if (useTicketCache && !ugi.hasKerberosCredentials()) {
            if (hasHDFSDelegationToken(ugi)) {
                LOG.warn("Hadoop security is enabled but current login user does not have Kerberos credentials, "
                        + "use delegation token instead. Flink application will terminate after token expires.");
                return true;
            }
            LOG.error("Hadoop security is enabled, but current login user has neither Kerberos"
                    + " credentials nor delegation tokens!");
            return false;
        }
        return true;
    }

    /** Whether the user has an HDFS delegation token. */
    public static boolean hasHDFSDelegationToken(UserGroupInformation ugi) {
        Collection<Token<? extends TokenIdentifier>> tokens = ugi.getTokens();
        for (Token<? extends TokenIdentifier> token : tokens) {
            if (token.getKind().equals(HDFS_DELEGATION_TOKEN_KIND)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the Hadoop on the class path is at least the given version. */
    public static boolean isMinHadoopVersion(int major, int minor) throws FlinkRuntimeException {
        Tuple2<Integer, Integer> version = hadoopVersion();
        return version.f0 > major || (version.f0 == major && version.f1 >= minor);
    }

    /** Whether the Hadoop on the class path is below the given version. */
    public static boolean isMaxHadoopVersion(int major, int minor) throws FlinkRuntimeException {
        Tuple2<Integer, Integer> version = hadoopVersion();
        return version.f0 < major || (version.f0 == major && version.f1 < minor);
    }

    private static Tuple2<Integer, Integer> hadoopVersion() {
        String version = VersionInfo.getVersion();
        String[] parts = version.split("\\.");
        if (parts.length < 2) {
            throw new FlinkRuntimeException(
                    "Cannot determine version of Hadoop, unexpected version string: " + version);
        }
        return Tuple2.of(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
    }
}
