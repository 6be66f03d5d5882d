#!/usr/bin/env bash
# HBase's Thrift1 gateway (org.apache.hadoop.hbase.thrift.ThriftServer, the API happybase speaks) in
# its own JVM, against a running HBase, the way `hbase thrift start` runs it: HBase's lib/ (as
# java/cluster/pom.xml resolves it) and hbase-thrift (java/thrift/pom.xml) on its class path, our
# jar beside them, and RowKeyWhere registered by hbase.thrift.filters in its hbase-site.xml.
#
#   gateway.sh start [--zookeeper host:port] [--port N] [--java HOME]
#   gateway.sh stop | status
#
# --zookeeper: the cluster's ZooKeeper (default 127.0.0.1:2181, `cargo make cluster start`'s);
# --port: the gateway's (default 9090). The jar: java/dist/target (`cargo make jar`) or $ROWKEY_JAR.
# State and log in java/thrift/target/gateway/, or $ROWKEY_GATEWAY_DIR (a test's own).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
state="${ROWKEY_GATEWAY_DIR:-$here/target/gateway}"
jar="${ROWKEY_JAR:-$here/../dist/target/hbase-rowkey-0.1.0-SNAPSHOT.jar}"
pidfile="$state/gateway.pid"

# shellcheck source=../processes.sh
. "$here/../processes.sh"

# What HBase's bin/hbase passes on JDK 11+, from java/pom.xml's jdk9plus profile (as Makefile.toml reads it).
jdk_flags() {
  local java="$1" feature
  feature="$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  if [ "${feature%%.*}" -ge 9 ] 2>/dev/null; then
    awk '/<test.module.flags>-/,/<\/test.module.flags>/' "$here/../pom.xml" | sed 's/<[^>]*>//g' | tr -s ' \n' ' '
  fi
}

start() {
  local zookeeper=127.0.0.1:2181 port=9090 java_home="${JAVA_HOME:-}"
  while [ $# -gt 0 ]; do
    case "$1" in
      --zookeeper) zookeeper="$2"; shift 2 ;;
      --port) port="$2"; shift 2 ;;
      --java) java_home="$2"; shift 2 ;;
      *) echo "gateway.sh start: unknown option $1" >&2; exit 2 ;;
    esac
  done
  case "$port" in ''|*[!0-9]*) echo "gateway.sh start: --port takes a number, not $port" >&2; exit 2 ;; esac
  case "$zookeeper" in *:*) ;; *) zookeeper="$zookeeper:2181" ;; esac
  if running; then
    echo "Thrift gateway: already running (pid $(cat "$pidfile")); gateway.sh stop first" >&2; exit 1
  fi
  [ -f "$jar" ] || { echo "gateway.sh: $jar is missing: cargo make jar" >&2; exit 1; }
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "gateway.sh: port $port is taken; choose another with --port" >&2; exit 1
  fi
  local java=java
  [ -n "$java_home" ] && java="$java_home/bin/java"

  mkdir -p "$state/conf"
  # Resolved once: HBase's lib/ (without our jar) and hbase-thrift with libthrift.
  if [ ! -s "$state/classpath.txt" ] || [ "$here/pom.xml" -nt "$state/classpath.txt" ]; then
    mvn -B -ntp -q -f "$here/../cluster/pom.xml" dependency:build-classpath -DincludeScope=runtime \
      -DexcludeGroupIds=org.rowkey -Drowkey.jar="$jar" -Dmdep.outputFile="$state/server-classpath.txt"
    mvn -B -ntp -q -f "$here/pom.xml" dependency:build-classpath -DincludeScope=runtime \
      -Dmdep.outputFile="$state/thrift-classpath.txt"
    echo "$(cat "$state/server-classpath.txt"):$(cat "$state/thrift-classpath.txt")" > "$state/classpath.txt"
  fi
  cat > "$state/conf/hbase-site.xml" <<EOF
<?xml version="1.0"?>
<configuration>
  <property><name>hbase.zookeeper.quorum</name><value>${zookeeper%:*}</value></property>
  <property><name>hbase.zookeeper.property.clientPort</name><value>${zookeeper##*:}</value></property>
  <property><name>hbase.thrift.filters</name><value>RowKeyWhere:org.rowkey.hbase.RowKeyWhere</value></property>
  <property><name>hbase.regionserver.thrift.ipaddress</name><value>127.0.0.1</value></property>
  <property><name>hbase.regionserver.thrift.port</name><value>$port</value></property>
  <property><name>hbase.thrift.info.port</name><value>-1</value></property>
</configuration>
EOF
  cat > "$state/conf/log4j2.properties" <<EOF
appender.file.type = File
appender.file.name = file
appender.file.fileName = $state/gateway.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n
rootLogger = INFO,file
EOF
  local -a flags
  flags=($(jdk_flags "$java"))
  nohup "$java" -Xmx512m "${flags[@]}" -Djava.net.preferIPv4Stack=true \
    -Dlog4j2.configurationFile="$state/conf/log4j2.properties" \
    -cp "$state/conf:$(cat "$state/classpath.txt"):$jar" org.apache.hadoop.hbase.thrift.ThriftServer start \
    > "$state/gateway.out" 2>&1 &
  echo $! > "$pidfile"
  echo "$port $zookeeper" > "$state/address"
  for _ in $(seq 1 120); do
    if ! running; then
      echo "Thrift gateway: exited during start; its output:" >&2
      tail -n 40 "$state/gateway.out" "$state/gateway.log" >&2 || true
      rm -f "$pidfile"; exit 1
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "Thrift gateway: up on 127.0.0.1:$port (pid $(cat "$pidfile")), HBase at ZooKeeper $zookeeper," \
        "RowKeyWhere registered; log in $state/gateway.log"
      return 0
    fi
    sleep 0.5
  done
  echo "Thrift gateway: not listening on $port after 60 s; see $state/gateway.log" >&2
  stop; exit 1
}

stop() {
  if ! running; then
    echo "Thrift gateway: not running"; rm -f "$pidfile"; return 0
  fi
  stop_pid "$(cat "$pidfile")" 30 "Thrift gateway"
  rm -f "$pidfile"
}

status() {
  if running; then
    local port zookeeper
    read -r port zookeeper < "$state/address"
    echo "Thrift gateway: running (pid $(cat "$pidfile")) on 127.0.0.1:$port, HBase at ZooKeeper $zookeeper"
  else
    echo "Thrift gateway: not running"; return 1
  fi
}

command="${1:-}"
[ $# -gt 0 ] && shift
case "$command" in
  start) start "$@" ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: gateway.sh start [--zookeeper host:port] [--port N] [--java HOME] | stop | status" >&2; exit 2 ;;
esac
