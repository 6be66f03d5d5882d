#!/usr/bin/env bash
# A real, standalone HBase in its own JVM, started from HBase's own jars the way bin/hbase does:
#   java -cp <conf>:<hbase-server and its dependencies> org.apache.hadoop.hbase.master.HMaster start
# (hbase.cluster.distributed=false: ZooKeeper, the master and one RegionServer in that JVM), every
# port bound to 127.0.0.1, data and logs under java/cluster/target/hbase/.
#
#   hbase.sh start [--port N] [--dynamic] [--hbase VERSION] [--java HOME]
#   hbase.sh check [--port N] [--hbase VERSION] [--java HOME]   ClusterCheck from another JVM
#   hbase.sh stop | status
#
# The hbase-rowkey jar (java/target, `cargo make jar`; or $ROWKEY_JAR) goes on the server's class path as if
# dropped into HBase's lib/, or with --dynamic only into hbase.dynamic.jars.dir, from where the
# RegionServer loads our comparators with its DynamicClassLoader. --port: ZooKeeper's client port
# (default 2181). Each start begins with empty data.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
state="$here/target/hbase"
jar="${ROWKEY_JAR:-$here/../target/hbase-rowkey-0.1.0-SNAPSHOT.jar}"
pidfile="$state/hbase.pid"

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

stop() {
  if ! running; then
    echo "HBase: not running"; rm -f "$pidfile"; return 0
  fi
  local pid; pid="$(cat "$pidfile")"
  kill -TERM "$pid"
  for _ in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; echo "HBase: stopped (pid $pid)"; return 0; }
    sleep 1
  done
  echo "HBase: pid $pid still up after 60 s, killing it" >&2
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}

start() {
  local port=2181 dynamic=false version=2.6.4 java_home="${JAVA_HOME:-}"
  while [ $# -gt 0 ]; do
    case "$1" in
      --port) port="$2"; shift 2 ;;
      --dynamic) dynamic=true; shift ;;
      --hbase) version="$2"; shift 2 ;;
      --java) java_home="$2"; shift 2 ;;
      *) echo "hbase.sh start: unknown option $1" >&2; exit 2 ;;
    esac
  done
  if running; then
    echo "HBase: already running (pid $(cat "$pidfile")); hbase.sh stop first" >&2; exit 1
  fi
  [ -f "$jar" ] || { echo "hbase.sh: $jar is missing: cargo make jar" >&2; exit 1; }
  local java=java
  [ -n "$java_home" ] && java="$java_home/bin/java"

  rm -rf "$state"
  mkdir -p "$state/conf" "$state/logs" "$state/lib" "$state/dynamic-jars" "$state/tmp"
  # HBase's lib/: hbase-server and its runtime dependencies, never our jar.
  mvn -B -ntp -q -f "$here/pom.xml" dependency:build-classpath -Dhbase.version="$version" -Drowkey.jar="$jar" \
    -DincludeScope=runtime -DexcludeGroupIds=org.rowkey -Dmdep.outputFile="$state/server-classpath.txt"
  grep -q hbase-rowkey "$state/server-classpath.txt" && { echo "hbase.sh: our jar leaked into HBase's lib/" >&2; exit 1; }
  local classpath="$state/conf:$(cat "$state/server-classpath.txt")"
  local dynamic_dir=""
  if $dynamic; then
    cp "$jar" "$state/dynamic-jars/"
    dynamic_dir="file://$state/dynamic-jars"
  else
    cp "$jar" "$state/lib/"
    classpath="$classpath:$state/lib/$(basename "$jar")"
  fi

  cat > "$state/conf/hbase-site.xml" <<EOF
<?xml version="1.0"?>
<configuration>
  <property><name>hbase.cluster.distributed</name><value>false</value></property>
  <property><name>hbase.rootdir</name><value>file://$state/data/hbase</value></property>
  <property><name>hbase.tmp.dir</name><value>$state/tmp</value></property>
  <property><name>hbase.zookeeper.quorum</name><value>127.0.0.1</value></property>
  <property><name>hbase.zookeeper.property.clientPort</name><value>$port</value></property>
  <property><name>hbase.zookeeper.property.dataDir</name><value>$state/data/zookeeper</value></property>
  <property><name>hbase.master.ipc.address</name><value>127.0.0.1</value></property>
  <property><name>hbase.regionserver.ipc.address</name><value>127.0.0.1</value></property>
  <property><name>hbase.master.hostname</name><value>127.0.0.1</value></property>
  <property><name>hbase.regionserver.hostname</name><value>127.0.0.1</value></property>
  <!-- Any free ports for the master and RegionServer (not 16000/16020): several may share a machine. -->
  <property><name>hbase.localcluster.assign.random.ports</name><value>true</value></property>
  <property><name>hbase.master.info.port</name><value>-1</value></property>
  <property><name>hbase.regionserver.info.port</name><value>-1</value></property>
  <!-- The local file system has no hflush/hsync: what bin/hbase's standalone default says too. -->
  <property><name>hbase.unsafe.stream.capability.enforce</name><value>false</value></property>
  <property><name>hbase.dynamic.jars.dir</name><value>${dynamic_dir:-file://$state/no-dynamic-jars}</value></property>
</configuration>
EOF
  cat > "$state/conf/log4j2.properties" <<EOF
appender.file.type = File
appender.file.name = file
appender.file.fileName = $state/logs/hbase.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n
rootLogger = INFO,file
EOF
  # HBase 2.4 logs through log4j 1.2, which reads log4j.properties from the class path.
  cat > "$state/conf/log4j.properties" <<EOF
log4j.rootLogger=INFO,file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=$state/logs/hbase.log
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{2}: %m%n
EOF

  local feature
  feature="$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  # shellcheck disable=SC2046
  nohup "$java" -Xmx1g $(java_flags "$java") -Djava.net.preferIPv4Stack=true \
    -Dlog4j2.configurationFile="$state/conf/log4j2.properties" -Djava.io.tmpdir="$state/tmp" \
    -cp "$classpath" org.apache.hadoop.hbase.master.HMaster start > "$state/logs/hbase.out" 2>&1 &
  echo $! > "$pidfile"

  local mode="lib/"; $dynamic && mode="hbase.dynamic.jars.dir"
  # ClusterCheck's expectations depend on it (table coprocessors never load from the dynamic dir).
  if $dynamic; then echo dynamic > "$state/jar-via"; else echo lib > "$state/jar-via"; fi
  for _ in $(seq 1 180); do
    if ! running; then
      echo "HBase: the server exited during start; its log:" >&2
      tail -40 "$state/logs/hbase.out" "$state/logs/hbase.log" >&2 || true
      exit 1
    fi
    if grep -q "Master has completed initialization" "$state/logs/hbase.log" 2>/dev/null; then
      echo "HBase $version: up (pid $(cat "$pidfile"), Java $feature), ZooKeeper at 127.0.0.1:$port," \
        "hbase-rowkey jar via $mode; logs in $state/logs"
      return 0
    fi
    sleep 1
  done
  echo "HBase: not up after 180 s; see $state/logs" >&2
  stop
  exit 1
}

java_flags() {
  local java="$1" feature
  feature="$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  if [ "${feature%%.*}" -ge 9 ] 2>/dev/null; then
    echo "${HBASE_JDK17_FLAGS:?set by Makefile.toml: run through cargo make}"
  fi
  if [ "${feature%%.*}" -ge 22 ] 2>/dev/null; then
    echo "--enable-native-access=ALL-UNNAMED"
  fi
}

# ClusterCheck (src/main/java) in its own JVM against the running server.
check() {
  local port=2181 version=2.6.4 java_home="${JAVA_HOME:-}"
  while [ $# -gt 0 ]; do
    case "$1" in
      --port) port="$2"; shift 2 ;;
      --hbase) version="$2"; shift 2 ;;
      --java) java_home="$2"; shift 2 ;;
      *) echo "hbase.sh check: unknown option $1" >&2; exit 2 ;;
    esac
  done
  local java=java
  [ -n "$java_home" ] && java="$java_home/bin/java"
  mkdir -p "$here/target"
  mvn -B -ntp -q -f "$here/pom.xml" compile dependency:build-classpath -Dhbase.version="$version" -Drowkey.jar="$jar" \
    -DincludeScope=compile -Dmdep.outputFile="$here/target/client-classpath.txt"
  # shellcheck disable=SC2046
  "$java" -Xmx512m $(java_flags "$java") -cp "$here/target/classes:$(cat "$here/target/client-classpath.txt")" \
    org.rowkey.hbase.cluster.ClusterCheck --zookeeper "127.0.0.1:$port" --jar-via "$(cat "$state/jar-via" 2>/dev/null || echo lib)"
}

case "${1:-}" in
  start) shift; start "$@" ;;
  check) shift; check "$@" ;;
  stop) stop ;;
  status) if running; then echo "HBase: running (pid $(cat "$pidfile"))"; else echo "HBase: not running"; fi ;;
  *) echo "usage: hbase.sh start [--port N] [--dynamic] [--hbase VERSION] [--java HOME] | check [--port N] [--hbase VERSION] [--java HOME] | stop | status" >&2; exit 2 ;;
esac
