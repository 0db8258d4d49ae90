#!/bin/sh
# One `pay subs cancel ID --yes` process per id, for the first N ids of FILE: how a shell loop
# over pay does the bulk cancel. Usage: cancel-loop.sh NODE PAY FILE N
node=$1 pay=$2 file=$3 n=$4
head -n "$n" "$file" | while read -r id; do
  "$node" "$pay" subs cancel "$id" --yes >/dev/null || exit 1
done
