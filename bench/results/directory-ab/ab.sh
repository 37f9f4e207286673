#!/bin/bash
# A directory case, -j 2, 298 s: files at once against in turn, both from /work/main's tree
# (once.py forces at_once=True), machine idle. Usage: ab.sh CASE ARM... (CASE: asan | yaml | qs)
set -u
c=$1; shift
case $c in
  asan) src=/work/main/bench/cases/c-program-asan/prog; test=/work/main/bench/cases/c-program-asan/test.sh; name=prog ;;
  yaml) src=/work/notes/heap2/pyyaml-src/pyyaml; test=/work/main/bench/cases/python-pyyaml-package/test.sh; name=pyyaml ;;
  qs) src=/work/notes/heap2/qs-src/qs; test=/work/main/bench/cases/js-qs-package/test.sh; name=qs ;;
esac
for arm in "$@"; do
  d=/tmp/ab2-$c-$arm; rm -rf $d; mkdir -p $d; cp -r $src $d/$name
  cd $d
  if [ "$arm" = once ]; then run=(/work/notes/heap2/once.py); else run=(-m treereduce_py); fi
  start=$(date +%s.%N)
  PYTHONPATH=${SRC:-/work/main} /work/main/.venv/bin/python "${run[@]}" $name -o out -j 2 --timeout 30 --max-time 298 --json -- $test @@ > run.json 2> run.err
  rc=$?
  end=$(date +%s.%N)
  bytes=$(find out -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}'); files=$(find out -type f | wc -l)
  rm -rf chk; cp -r out chk; $test chk; ok=$?
  tests=$(grep -o '"tree_tests":[0-9]*' run.err | tail -1)
  echo "$c $arm rc=$rc wall=$(echo "$end - $start" | bc) bytes=$bytes files=$files passes=$ok $tests $(date +%H:%M)"
done
