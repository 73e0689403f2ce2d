#!/usr/bin/env bash
# Peak resident memory of each task of a 1 PS + 2 worker cluster, and of a
# dtf-run process that only starts (what loading the binary costs):
#
#   bash bench/memory.sh [STEPS]     # default 2000 global steps
#
# Each task is its own process under /usr/bin/time (GNU time's %M, peak RSS
# in KB), on loopback, one executor thread and one OpenBLAS thread each, as
# the study runs them. Prints the figures; not a test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dtf_run="${DTF_RUN:-$root/build/bin/dtf-run}"
steps="${1:-2000}"
logs="$(mktemp -d /tmp/dtf-memory.XXXXXX)"
ports=($(python3 -c 'import socket
s=[socket.socket() for _ in range(3)]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))'))
flags=(--ps_hosts=localhost:${ports[0]}
       --worker_hosts=localhost:${ports[1]},localhost:${ports[2]}
       --train_steps="$steps" --inter_op_parallelism_threads=1 --log_every=0)
export OPENBLAS_NUM_THREADS=1
/usr/bin/time -f "%M" -o "$logs/start" "$dtf_run" > /dev/null 2>&1 || true
echo "dtf-run started alone: $(tail -1 "$logs/start") KB peak RSS"
for task in ps:0 worker:0 worker:1; do
  job=${task%:*}; index=${task#*:}
  /usr/bin/time -f "%M" -o "$logs/$job$index" "$dtf_run" "${flags[@]}" \
    --job_name="$job" --task_index="$index" "$root/examples/mnist_mlp.mlir" \
    > "$logs/$job$index.log" 2>&1 &
done
wait
for task in ps0 worker0 worker1; do
  echo "$task: $(tail -1 "$logs/$task") KB peak RSS ($steps global steps)"
done
grep -h "validation accuracy" "$logs/worker0.log"
rm -rf "$logs"
