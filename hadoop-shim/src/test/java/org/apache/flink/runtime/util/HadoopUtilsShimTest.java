package org.apache.flink.runtime.util;

import org.apache.flink.configuration.Configuration;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.TokenIdentifier;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shim keeps the public surface of Flink's class, of the Flink line it is built for, and returns
 * an empty configuration.
 */
class HadoopUtilsShimTest {

    private static final String NAME = "org.apache.flink.runtime.util.HadoopUtils";

    @Test
    void keepsEveryPublicMethodOfFlinksClass() throws Exception {
        Class<?> flinks = new FlinkHadoopUtilsLoader().loadClass(NAME);
        assertThat(flinks.getClassLoader()).isInstanceOf(FlinkHadoopUtilsLoader.class);
        assertThat(publicSurface(HadoopUtils.class))
                .isEqualTo(publicSurface(flinks))
                .hasSize(7);
    }

    @Test
    void givesAnEmptyConfigurationWithTheFlinkHadoopEntries() {
        Configuration flink = new Configuration();
        flink.setString("flink.hadoop.fs.s3a.endpoint", "http://127.0.0.1:9000");
        flink.setString("flink.hadoop.dfs.replication", "2");
        flink.setString("parallelism.default", "3");

        org.apache.hadoop.conf.Configuration conf = HadoopUtils.getHadoopConfiguration(flink);

        assertThat(conf.size()).isEqualTo(2);
        assertThat(conf.get("fs.s3a.endpoint")).isEqualTo("http://127.0.0.1:9000");
        assertThat(conf.get("dfs.replication")).isEqualTo("2");
        // No core-default.xml: nothing the class path happens to hold leaks into a catalog.
        assertThat(conf.get("fs.defaultFS")).isNull();
        assertThat(HadoopUtils.getHadoopConfiguration(new Configuration()).size())
                .isZero();
    }

    @Test
    void answersVersionAndTokenQuestionsAsFlinkDoes() throws IOException {
        assertThat(HadoopUtils.isMinHadoopVersion(3, 3)).isTrue();
        assertThat(HadoopUtils.isMinHadoopVersion(3, 4)).isFalse();
        assertThat(HadoopUtils.isMaxHadoopVersion(3, 4)).isTrue();
        assertThat(HadoopUtils.isMaxHadoopVersion(3, 3)).isFalse();

        UserGroupInformation ugi = UserGroupInformation.createRemoteUser("inlet");
        assertThat(HadoopUtils.isKerberosSecurityEnabled(ugi)).isFalse();
        assertThat(HadoopUtils.hasHDFSDelegationToken(ugi)).isFalse();
        ugi.addToken(new Token<TokenIdentifier>(
                new byte[0], new byte[0], new Text("HDFS_DELEGATION_TOKEN"), new Text("nn")));
        assertThat(HadoopUtils.hasHDFSDelegationToken(ugi)).isTrue();
    }

    /** Public methods and constructors, with their types; fields are not public in Flink's class. */
    private static Set<String> publicSurface(Class<?> c) {
        Set<String> surface = Arrays.stream(c.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers()))
                .map(HadoopUtilsShimTest::signature)
                .collect(Collectors.toCollection(TreeSet::new));
        Arrays.stream(c.getConstructors()).forEach(k -> surface.add("new" + Arrays.toString(k.getParameterTypes())));
        assertThat(c.getFields()).isEmpty();
        return surface;
    }

    private static String signature(Method m) {
        return (Modifier.isStatic(m.getModifiers()) ? "static " : "")
                + m.getReturnType().getName() + " " + m.getName()
                + Arrays.stream(m.getParameterTypes()).map(Class::getName).collect(Collectors.joining(", ", "(", ")"))
                + Arrays.stream(m.getExceptionTypes())
                        .map(Class::getName)
                        .collect(Collectors.joining(", ", " throws ", ""));
    }

    /** Defines Flink's own HadoopUtils from the flink-hadoop-fs jar, which the shim hides on this class path. */
    private static final class FlinkHadoopUtilsLoader extends ClassLoader {
        FlinkHadoopUtilsLoader() {
            super(HadoopUtilsShimTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(NAME)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded != null) {
                    return loaded;
                }
                String resource = NAME.replace('.', '/') + ".class";
                try {
                    for (URL url : java.util.Collections.list(getParent().getResources(resource))) {
                        if (url.toString().contains("flink-hadoop-fs")) {
                            try (InputStream in = url.openStream()) {
                                byte[] bytes = in.readAllBytes();
                                return defineClass(name, bytes, 0, bytes.length);
                            }
                        }
                    }
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
                throw new ClassNotFoundException(name + " from flink-hadoop-fs is not on the test class path");
            }
        }
    }
}
