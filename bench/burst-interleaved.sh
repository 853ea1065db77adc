#!/bin/sh
# Interleaved before/after runs of bench/burst.ts: BASE and NEW are two checkouts (each built with
# `npm run build`), run alternately RUNS times with the same arguments; each run's Markdown goes to
# OUT/<side>-<i>.md. Compare ratios within one run (bullbeat p99 / BullMQ p99), not across runs.
#   BASE=/tmp/base NEW=. OUT=/tmp/burst RUNS=3 bench/burst-interleaved.sh --n 1000,2000 --seconds 20
set -e
: "${BASE:?checkout of the code before}" "${NEW:=.}" "${OUT:=/tmp/burst}" "${RUNS:=3}"
mkdir -p "$OUT"
i=1
while [ "$i" -le "$RUNS" ]; do
  for side in base new; do
    if [ "$side" = base ]; then dir=$BASE; else dir=$NEW; fi
    (cd "$dir" && node --import tsx bench/burst.ts "$@" > "$OUT/$side-$i.md")
  done
  i=$((i + 1))
done
