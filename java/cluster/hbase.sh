#!/usr/bin/env bash
# A real HBase in its own JVMs, started from HBase's own jars the way bin/hbase does:
#   java -cp <conf>:<hbase-server and its dependencies> org.apache.hadoop.hbase.master.HMaster start
# Every port bound to 127.0.0.1, data and logs under java/cluster/target/hbase/.
#
# Standalone (the default): hbase.cluster.distributed=false, ZooKeeper, the master and one
# RegionServer in one JVM.
# Pseudo-distributed (--regionservers N): one process each for ZooKeeper, the HMaster and N
# HRegionServers, as on a cluster, the root directory on the local file system; RegionServers can
# then be killed (kill -9) and started again while the others serve (the load test's chaos).
#
#   hbase.sh start [--port N] [--dynamic] [--hbase VERSION] [--java HOME] [--regionservers N] [--heap SIZE]
#   hbase.sh check [--port N] [--hbase VERSION] [--java HOME]   ClusterCheck from another JVM
#   hbase.sh stop | status
#   hbase.sh pids            one line per process: role, number, pid, info (HTTP /jmx) port, RPC port
#   hbase.sh restart-rs K    pseudo-distributed: kill -9 RegionServer K, start it again on its ports
#
# The hbase-rowkey jar (java/dist/target, `cargo make jar`; or $ROWKEY_JAR) goes on the server's class path as if
# dropped into HBase's lib/, or with --dynamic only into hbase.dynamic.jars.dir, from where the
# RegionServer loads our comparators with its DynamicClassLoader. --port: ZooKeeper's client port
# (default 2181). --heap: the standalone JVM's -Xmx, or each RegionServer's in pseudo-distributed mode (default 1g; the master
# gets 768m, ZooKeeper 256m). Each start begins with empty data.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
state="$here/target/hbase"
jar="${ROWKEY_JAR:-$here/../dist/target/hbase-rowkey-0.1.0-SNAPSHOT.jar}"
# Standalone: the one JVM. Pseudo-distributed: the master (ZooKeeper and RegionServers have their own).
pidfile="$state/hbase.pid"

# shellcheck source=../processes.sh
. "$here/../processes.sh"

stop() {
  if [ -f "$state/mode" ] && [ "$(cat "$state/mode")" = distributed ]; then
    # The master first, so that it does not reassign the regions of RegionServers going down.
    stop_pid "$(cat "$pidfile" 2>/dev/null || true)" 60 "HBase master"
    local f
    for f in "$state"/rs-*.pid; do
      [ -f "$f" ] || continue
      local k="${f##*/rs-}"; k="${k%.pid}"
      stop_pid "$(cat "$f")" 60 "RegionServer $k"
    done
    stop_pid "$(cat "$state/zookeeper.pid" 2>/dev/null || true)" 30 "ZooKeeper"
    rm -f "$pidfile" "$state"/rs-*.pid "$state/zookeeper.pid"
    return 0
  fi
  if ! running; then
    echo "HBase: not running"; rm -f "$pidfile"; return 0
  fi
  stop_pid "$(cat "$pidfile")" 60 "HBase"
  rm -f "$pidfile"
}

# A TCP port nobody listens on now, on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  local port=2181 dynamic=false version=2.6.4 java_home="${JAVA_HOME:-}" regionservers=0 heap=1g
  while [ $# -gt 0 ]; do
    case "$1" in
      --port) port="$2"; shift 2 ;;
      --dynamic) dynamic=true; shift ;;
      --hbase) version="$2"; shift 2 ;;
      --java) java_home="$2"; shift 2 ;;
      --regionservers) regionservers="$2"; shift 2 ;;
      --heap) heap="$2"; shift 2 ;;
      *) echo "hbase.sh start: unknown option $1" >&2; exit 2 ;;
    esac
  done
  case "$regionservers" in
    ''|*[!0-9]*) echo "hbase.sh start: --regionservers takes a number, not $regionservers" >&2; exit 2 ;;
  esac
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
  echo "$classpath" > "$state/classpath.txt"
  echo "$java" > "$state/java.txt"
  # ClusterCheck's expectations depend on it (table coprocessors never load from the dynamic dir).
  if $dynamic; then echo dynamic > "$state/jar-via"; else echo lib > "$state/jar-via"; fi

  local distributed=false
  [ "$regionservers" -gt 0 ] && distributed=true
  local distributed_settings=""
  if $distributed; then
    echo distributed > "$state/mode"
    # The RegionServers' info servers (HTTP /jmx, the load test's metrics) look for their web apps on
    # the class path; Maven's hbase-server jar has none (HBase's tarball does): empty ones serve /jmx.
    mkdir -p "$state/webapps/hbase-webapps/regionserver" "$state/webapps/hbase-webapps/static"
    classpath="$classpath:$state/webapps"
    echo "$classpath" > "$state/classpath.txt"
    local master_port; master_port="$(free_port)"
    distributed_settings="$(cat <<EOF
  <property><name>hbase.master.port</name><value>$master_port</value></property>
  <property><name>hbase.regionserver.info.bindAddress</name><value>127.0.0.1</value></property>
  <!-- The local file system as the root directory: RawLocalFileSystem, whose hflush hands every
       byte of the WAL to the operating system, so a RegionServer killed with kill -9 loses no
       acknowledged edit. The default, checksummed LocalFileSystem's hflush writes only whole
       512-byte chunks, into a buffered stream (Hadoop 2.10's FSOutputSummer.flush). -->
  <property><name>fs.file.impl</name><value>org.apache.hadoop.fs.RawLocalFileSystem</value></property>
  <!-- Every call a handler holds over 2 s is logged (responseTooSlow, with its method and region):
       the load test counts them by method and table. -->
  <property><name>hbase.ipc.warn.response.time</name><value>2000</value></property>
  <!-- A killed RegionServer is noticed when its ZooKeeper session ends: 20 s, not 90. -->
  <property><name>zookeeper.session.timeout</name><value>20000</value></property>
EOF
)"
  else
    echo standalone > "$state/mode"
  fi

  cat > "$state/conf/hbase-site.xml" <<EOF
<?xml version="1.0"?>
<configuration>
  <property><name>hbase.cluster.distributed</name><value>$distributed</value></property>
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
$distributed_settings
</configuration>
EOF
  # Each process logs to the file its -Drowkey.log.file names.
  cat > "$state/conf/log4j2.properties" <<EOF
appender.file.type = File
appender.file.name = file
appender.file.fileName = \${sys:rowkey.log.file}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n
rootLogger = INFO,file
EOF
  # HBase 2.4 logs through log4j 1.2, which reads log4j.properties from the class path.
  cat > "$state/conf/log4j.properties" <<EOF
log4j.rootLogger=INFO,file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=\${rowkey.log.file}
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{2}: %m%n
EOF

  if $distributed; then
    start_distributed "$port" "$regionservers" "$heap" "$version" "$dynamic"
  else
    start_standalone "$port" "$version" "$dynamic"
  fi
}

# The command line of a server JVM, into the array jvm: java, heap, flags, logging to $state/logs/$2.log.
server_jvm() {
  local heap="$1" log="$2" java; java="$(cat "$state/java.txt")"
  local -a flags
  # shellcheck disable=SC2207
  flags=($(java_flags "$java"))
  jvm=("$java" -Xmx"$heap" "${flags[@]}" -Djava.net.preferIPv4Stack=true
    -Dlog4j2.configurationFile="$state/conf/log4j2.properties" -Drowkey.log.file="$state/logs/$log.log"
    -Djava.io.tmpdir="$state/tmp" -cp "$(cat "$state/classpath.txt")")
}

start_standalone() {
  local port="$1" version="$2" dynamic="$3" java feature
  java="$(cat "$state/java.txt")"
  feature="$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  server_jvm "$heap" hbase
  nohup "${jvm[@]}" org.apache.hadoop.hbase.master.HMaster start > "$state/logs/hbase.out" 2>&1 &
  echo $! > "$pidfile"

  local mode="lib/"; $dynamic && mode="hbase.dynamic.jars.dir"
  for _ in $(seq 1 180); do
    if ! running; then
      echo "HBase: the server exited during start; its log:" >&2
      tail -n 40 "$state/logs/hbase.out" "$state/logs/hbase.log" >&2 || true
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

start_distributed() {
  local port="$1" regionservers="$2" heap="$3" version="$4" dynamic="$5"
  echo "$heap" > "$state/rs-heap.txt"
  # ZooKeeper as bin/hbase-daemon.sh's "zookeeper" would run it, but from ZooKeeper's own main
  # (HQuorumPeer wants this host's name in the quorum): no admin server, bound to 127.0.0.1.
  cat > "$state/conf/zoo.cfg" <<EOF
tickTime=2000
dataDir=$state/data/zookeeper
clientPort=$port
clientPortAddress=127.0.0.1
maxClientCnxns=0
admin.enableServer=false
EOF
  server_jvm 256m zookeeper
  nohup "${jvm[@]}" org.apache.zookeeper.server.ZooKeeperServerMain "$state/conf/zoo.cfg" \
    > "$state/logs/zookeeper.out" 2>&1 &
  echo $! > "$state/zookeeper.pid"
  local up=false
  for _ in $(seq 1 60); do
    alive "$(cat "$state/zookeeper.pid")" || break
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then up=true; break; fi
    sleep 1
  done
  if ! $up; then
    echo "ZooKeeper: not up on 127.0.0.1:$port; its log:" >&2
    tail -n 40 "$state/logs/zookeeper.out" "$state/logs/zookeeper.log" >&2 || true
    stop; exit 1
  fi

  server_jvm 768m master
  nohup "${jvm[@]}" org.apache.hadoop.hbase.master.HMaster start > "$state/logs/master.out" 2>&1 &
  echo $! > "$pidfile"
  local k
  for k in $(seq 1 "$regionservers"); do
    echo "$(free_port) $(free_port)" > "$state/rs-$k.ports"
    start_regionserver "$k"
  done

  local mode="lib/"; $dynamic && mode="hbase.dynamic.jars.dir"
  for _ in $(seq 1 240); do
    if ! running; then
      echo "HBase: the master exited during start; its log:" >&2
      tail -n 40 "$state/logs/master.out" "$state/logs/master.log" >&2 || true
      stop; exit 1
    fi
    for k in $(seq 1 "$regionservers"); do
      if ! alive "$(cat "$state/rs-$k.pid")"; then
        echo "HBase: RegionServer $k exited during start; its log:" >&2
        tail -n 40 "$state/logs/rs-$k.out" "$(current_rs_log "$k")" >&2 || true
        stop; exit 1
      fi
    done
    if grep -q "Master has completed initialization" "$state/logs/master.log" 2>/dev/null \
        && [ "$(registered_regionservers)" -ge "$regionservers" ]; then
      echo "HBase $version: up, pseudo-distributed: ZooKeeper at 127.0.0.1:$port (pid $(cat "$state/zookeeper.pid"))," \
        "master pid $(cat "$pidfile"), $regionservers RegionServer(s) ($heap heap each), hbase-rowkey jar via $mode;" \
        "logs in $state/logs"
      pids
      return 0
    fi
    sleep 1
  done
  echo "HBase: not up after 240 s; see $state/logs" >&2
  stop
  exit 1
}

# RegionServers the master has taken in since it started (each start of one counts).
registered_regionservers() {
  local n; n="$(grep -c "Registering regionserver=" "$state/logs/master.log" 2>/dev/null)" || true
  echo "${n:-0}"
}

# The log of RegionServer K's current start: rs-K.log, then rs-K.2.log after the first restart, ...
current_rs_log() {
  echo "$state/logs/$(cat "$state/rs-$1.log-name" 2>/dev/null || echo "rs-$1").log"
}

# Starts RegionServer K on the ports in rs-K.ports (RPC, info), logging to a new file each start.
start_regionserver() {
  local k="$1" rpc info starts log
  read -r rpc info < "$state/rs-$k.ports"
  starts=$(( $(cat "$state/rs-$k.starts" 2>/dev/null || echo 0) + 1 ))
  echo "$starts" > "$state/rs-$k.starts"
  log="rs-$k"; [ "$starts" -gt 1 ] && log="rs-$k.$starts"
  echo "$log" > "$state/rs-$k.log-name"
  # What bin/hbase gives a server: an OutOfMemoryError ends the process rather than leaving it half alive.
  server_jvm "$(cat "$state/rs-heap.txt")" "$log"
  nohup "${jvm[@]}" "-XX:OnOutOfMemoryError=kill -9 %p" \
    org.apache.hadoop.hbase.regionserver.HRegionServer \
    -Dhbase.regionserver.port="$rpc" -Dhbase.regionserver.info.port="$info" start >> "$state/logs/rs-$k.out" 2>&1 &
  echo $! > "$state/rs-$k.pid"
}

# kill -9 of RegionServer K, then the same RegionServer started again on its ports: the master sees a
# new start code at a known address and recovers the old one's regions at once.
restart_rs() {
  local k="${1:-}"
  [ -f "$state/mode" ] && [ "$(cat "$state/mode")" = distributed ] \
    || { echo "hbase.sh restart-rs: needs a pseudo-distributed cluster (start --regionservers N)" >&2; exit 1; }
  [ -n "$k" ] && [ -f "$state/rs-$k.ports" ] || { echo "hbase.sh restart-rs: no RegionServer '$k'" >&2; exit 2; }
  local pid; pid="$(cat "$state/rs-$k.pid")"
  if alive "$pid"; then
    kill -KILL "$pid"
    for _ in $(seq 1 30); do alive "$pid" || break; sleep 0.2; done
    echo "RegionServer $k: killed (kill -9, pid $pid)"
  else
    echo "RegionServer $k: was not running (pid $pid)"
  fi
  local before; before="$(registered_regionservers)"
  # The RPC port may be held a moment by the dead process's sockets: retry the start a few times.
  local attempt
  for attempt in 1 2 3 4 5; do
    start_regionserver "$k"
    local new; new="$(cat "$state/rs-$k.pid")"
    for _ in $(seq 1 120); do
      alive "$new" || break
      if [ "$(registered_regionservers)" -gt "$before" ]; then
        echo "RegionServer $k: started again (pid $new, attempt $attempt)"
        return 0
      fi
      sleep 1
    done
    if alive "$new"; then
      echo "RegionServer $k: pid $new not registered with the master after 120 s; see $(current_rs_log "$k")" >&2
      exit 1
    fi
    echo "RegionServer $k: pid $new exited during start (attempt $attempt): $(grep -m1 -i 'exception' \
      "$(current_rs_log "$k")" || echo 'see its log')" >&2
    sleep 3
  done
  exit 1
}

# One line per server process: role, number, pid, info port (HTTP /jmx; - if none), RPC port.
pids() {
  [ -f "$pidfile" ] || { echo "HBase: not running" >&2; exit 1; }
  if [ "$(cat "$state/mode" 2>/dev/null)" != distributed ]; then
    echo "standalone 0 $(cat "$pidfile") - -"
    return 0
  fi
  echo "zookeeper 0 $(cat "$state/zookeeper.pid") - -"
  echo "master 0 $(cat "$pidfile") - -"
  local f k rpc info
  for f in "$state"/rs-*.ports; do
    k="${f##*/rs-}"; k="${k%.ports}"
    read -r rpc info < "$f"
    echo "regionserver $k $(cat "$state/rs-$k.pid") $info $rpc"
  done
}

status() {
  if ! running; then echo "HBase: not running"; return 0; fi
  if [ "$(cat "$state/mode" 2>/dev/null)" != distributed ]; then
    echo "HBase: running (pid $(cat "$pidfile"))"; return 0
  fi
  local role k pid info rpc
  while read -r role k pid info rpc; do
    if alive "$pid"; then echo "$role $k: running (pid $pid)"; else echo "$role $k: DOWN (pid $pid)"; fi
  done < <(pids)
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
  status) status ;;
  pids) pids ;;
  restart-rs) shift; restart_rs "$@" ;;
  *) echo "usage: hbase.sh start [--port N] [--dynamic] [--hbase VERSION] [--java HOME] [--regionservers N] [--heap SIZE]" \
       "| check [--port N] [--hbase VERSION] [--java HOME] | stop | status | pids | restart-rs K" >&2; exit 2 ;;
esac
