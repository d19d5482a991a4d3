package org.structlr.spark;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.structlr.data.RemoteFiles;

/**
 * {@link RemoteFiles} through Hadoop's FileSystem API (hadoop-client, which Spark brings): any
 * scheme with a Hadoop FileSystem on the classpath, hdfs:// and object stores with the user's
 * connector (s3a://, gs://, abfs://). The Hadoop configuration is the usual one (core-site.xml and
 * hdfs-site.xml from the classpath or HADOOP_CONF_DIR) plus every JVM property
 * {@code spark.hadoop.K=V} as {@code K=V}, as Spark itself does, and fewer connection retries.
 */
public final class HadoopFiles implements RemoteFiles {

    static Configuration configuration() {
        return configuration(Map.of());
    }

    /**
     * The configuration with {@code settings} ({@code spark.hadoop.K} to V, as {@link #settings}
     * collects them on the driver) applied last: executors on other machines do not have the
     * driver's system properties, so the driver's settings travel with the tasks.
     */
    static Configuration configuration(Map<String, String> settings) {
        Configuration conf = new Configuration();
        // a wrong name-node address should be an error within seconds, not after Hadoop's default
        // 10 refused / 45 timed-out connection attempts (up to 15 minutes); the user's settings win
        unlessConfigured(conf, "ipc.client.connect.max.retries", "2");
        unlessConfigured(conf, "ipc.client.connect.max.retries.on.timeouts", "2");
        for (Map.Entry<Object, Object> e : System.getProperties().entrySet()) {
            String k = e.getKey().toString();
            if (k.startsWith("spark.hadoop.")) conf.set(k.substring("spark.hadoop.".length()), e.getValue().toString());
        }
        for (Map.Entry<String, String> e : settings.entrySet()) conf.set(e.getKey().substring("spark.hadoop.".length()), e.getValue());
        return conf;
    }

    /** The {@code spark.hadoop.*} settings of a Spark configuration (which holds the JVM's spark.* properties too). */
    static java.util.HashMap<String, String> settings(org.apache.spark.SparkConf conf) {
        java.util.HashMap<String, String> out = new java.util.HashMap<>();
        for (scala.Tuple2<String, String> kv : conf.getAllWithPrefix("spark.hadoop.")) out.put("spark.hadoop." + kv._1(), kv._2());
        for (Map.Entry<Object, Object> e : System.getProperties().entrySet()) {
            String k = e.getKey().toString();
            if (k.startsWith("spark.hadoop.")) out.putIfAbsent(k, e.getValue().toString());
        }
        return out;
    }

    /** Sets k unless a site file (not Hadoop's own core-default.xml) gives it. */
    private static void unlessConfigured(Configuration conf, String k, String v) {
        String[] from = conf.getPropertySources(k);
        if (from == null || java.util.Arrays.stream(from).allMatch(f -> f.equals("core-default.xml"))) conf.set(k, v);
    }

    private static org.apache.hadoop.fs.Path path(String uri) {
        return new org.apache.hadoop.fs.Path(URI.create(uri));
    }

    private static FileSystem fs(org.apache.hadoop.fs.Path p) throws IOException {
        return p.getFileSystem(configuration());
    }

    @Override
    public boolean exists(String uri) throws IOException {
        org.apache.hadoop.fs.Path p = path(uri);
        return fs(p).exists(p);
    }

    @Override
    public boolean isFolder(String uri) throws IOException {
        org.apache.hadoop.fs.Path p = path(uri);
        FileSystem fs = fs(p);
        return fs.exists(p) && fs.getFileStatus(p).isDirectory();
    }

    @Override
    public java.util.List<Entry> list(String uri) throws IOException {
        org.apache.hadoop.fs.Path p = path(uri);
        FileSystem fs = fs(p);
        if (!fs.exists(p) || !fs.getFileStatus(p).isDirectory()) return java.util.List.of();
        java.util.List<Entry> out = new java.util.ArrayList<>();
        for (org.apache.hadoop.fs.FileStatus st : fs.listStatus(p)) {
            String name = st.getPath().getName();
            if (name.endsWith(".crc") && name.startsWith(".")) continue;     // checksums of Hadoop's local file system
            out.add(new Entry(name, st.isDirectory(), st.getLen()));
        }
        out.sort(java.util.Comparator.comparing(Entry::name));
        return out;
    }

    @Override
    public void delete(String uri) throws IOException {
        org.apache.hadoop.fs.Path p = path(uri);
        FileSystem fs = fs(p);
        if (fs.exists(p) && !fs.delete(p, true)) throw new IOException("cannot delete " + uri);
    }

    @Override
    public void fetch(String uri, Path local) throws IOException {
        org.apache.hadoop.fs.Path p = path(uri);
        FileSystem fs = fs(p);
        if (!fs.exists(p)) throw new IOException("no such file or folder");
        // copyToLocalFile(delSrc, src, dst, useRawLocalFileSystem): raw, so that no .crc files appear beside the copies
        fs.copyToLocalFile(false, p, new org.apache.hadoop.fs.Path(local.toAbsolutePath().toUri()), true);
    }

    @Override
    public void publish(Path local, String uri) throws IOException {
        org.apache.hadoop.fs.Path target = path(uri);
        FileSystem fs = fs(target);
        // a local target: the raw file system, so that no .crc files appear beside the outputs
        if (fs instanceof org.apache.hadoop.fs.LocalFileSystem lfs) fs = lfs.getRaw();
        org.apache.hadoop.fs.Path tmp = new org.apache.hadoop.fs.Path(target.getParent(), "." + target.getName() + ".tmp-" + UUID.randomUUID());
        FileSystem localFs = FileSystem.getLocal(configuration()).getRaw();
        boolean keepTmp = false;
        try {
            if (!FileUtil.copy(localFs, new org.apache.hadoop.fs.Path(local.toAbsolutePath().toUri()), fs, tmp, false, true, fs.getConf())) {
                throw new IOException("copy to " + tmp + " failed");
            }
            // the old output stays until the new one is in place: moved aside, the new one renamed in,
            // the old one deleted last (put back when the rename fails). HDFS renames are atomic; an
            // object store's are copies, still never leaving the target without one complete output.
            if (!fs.exists(target)) {
                if (!fs.rename(tmp, target)) throw new IOException("cannot rename " + tmp + " to " + target);
                return;
            }
            org.apache.hadoop.fs.Path old = new org.apache.hadoop.fs.Path(target.getParent(), "." + target.getName() + ".old-" + UUID.randomUUID());
            if (!fs.rename(target, old)) throw new IOException("cannot move the previous " + target + " aside");
            if (!fs.rename(tmp, target)) {
                if (!fs.rename(old, target)) {
                    keepTmp = true;
                    throw new IOException("cannot rename " + tmp + " to " + target + ", nor put the previous output back from " + old
                            + "; both are kept");
                }
                throw new IOException("cannot rename " + tmp + " to " + target + " (the previous output is kept)");
            }
            fs.delete(old, true);   // a leftover .old-* sibling is no reason to fail a published output
        } finally {
            if (!keepTmp && fs.exists(tmp)) fs.delete(tmp, true);
        }
    }
}
