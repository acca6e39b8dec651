package io.streamrecon.pipeline.testing;

import java.io.File;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * The main class of the HDFS child JVM that {@link HdfsProcess} starts: a {@code MiniDFSCluster} (a
 * NameNode and one DataNode in this JVM) on loopback and free ports, its storage under the
 * directory given as the only argument. Prints {@value #URI_LINE}{@code hdfs://localhost:PORT} once
 * the cluster is up and stays up until the process is killed.
 */
public final class MiniHdfsMain {
  /** The line that announces the file system's URI. */
  public static final String URI_LINE = "streamrecon-test-hdfs-uri=";

  private MiniHdfsMain() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, new File(args[0]).getAbsolutePath());
    conf.set("dfs.namenode.rpc-bind-host", "127.0.0.1");
    conf.set("dfs.namenode.http-address", "127.0.0.1:0");
    conf.setBoolean("dfs.permissions.enabled", false);
    conf.setInt("dfs.replication", 1);
    MiniDFSCluster cluster =
        new MiniDFSCluster.Builder(conf).numDataNodes(1).nameNodePort(0).format(true).build();
    cluster.waitActive();
    System.out.println(URI_LINE + cluster.getURI());
    System.out.flush();
    // Runs until the test kills the process.
    new CountDownLatch(1).await();
  }
}
