#!/usr/bin/env bash
# Polls a running `bin/bench soak|sustain --engine=spark` trial for its profile: every INTERVAL
# seconds (default 15) saves Spark's REST API (jobs, stages, streaming batches and their output
# operations) and the size of
# the checkpoint directory with the load average, until the pipeline's UI stops answering.
#
#   bench/spark-profile/poll.sh TRIAL_DIR OUT_DIR      # TRIAL_DIR: the soak's --dir (pipeline.log)
#
# The UI port is read from the pipeline's command line in TRIAL_DIR/pipeline.log. Raise Spark's
# UI retention for a whole trial: --pipelineJvmArg=-Dspark.ui.retainedJobs=20000 and
# --pipelineJvmArg=-Dspark.ui.retainedStages=40000.
set -uo pipefail
trial=$1 out=$2 interval=${INTERVAL:-15}
mkdir -p "$out"
until [[ -f $trial/pipeline.log ]] && grep -q -- '-Dspark.ui.port=' "$trial/pipeline.log"; do
  sleep 1
done
port=$(grep -o -- '-Dspark.ui.port=[0-9]*' "$trial/pipeline.log" | head -1 | cut -d= -f2)
base=http://127.0.0.1:$port/api/v1/applications
ckpt=$trial/warehouse/_checkpoints
echo "port $port" >&2
until app=$(curl -sf "$base" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])' 2>/dev/null); do
  sleep 2
done
echo "app $app" >&2
printf 'epoch_s\tload1\tcheckpoint_bytes\tcheckpoint_files\n' > "$out/checkpoint-du.tsv"
misses=0
while (( misses < 3 )); do
  t=$(date +%s)
  if curl -sf "$base/$app/jobs" -o "$out/jobs.tmp"; then
    misses=0
    mv "$out/jobs.tmp" "$out/jobs.json"
    curl -sf "$base/$app/stages" -o "$out/stages.tmp" && mv "$out/stages.tmp" "$out/stages.json"
    curl -sf "$base/$app/streaming/batches" -o "$out/batches.tmp" && mv "$out/batches.tmp" "$out/batches.json"
    curl -sf "$base/$app/executors" -o "$out/executors.tmp" && mv "$out/executors.tmp" "$out/executors.json"
    # each completed batch's output operations (their Spark job ids), once
    mkdir -p "$out/ops"
    for id in $(python3 -c 'import json,sys; [print(b["batchId"]) for b in json.load(open(sys.argv[1])) if b["status"]=="COMPLETED"]' "$out/batches.json" 2>/dev/null); do
      [[ -s $out/ops/$id.json ]] || curl -sf "$base/$app/streaming/batches/$id/operations" -o "$out/ops/$id.json"
    done
  else
    misses=$((misses + 1))
  fi
  bytes=$(du -sb "$ckpt" 2>/dev/null | cut -f1)
  files=$(find "$ckpt" -type f 2>/dev/null | wc -l)
  printf '%s\t%s\t%s\t%s\n' "$t" "$(cut -d' ' -f1 /proc/loadavg)" "${bytes:-0}" "$files" >> "$out/checkpoint-du.tsv"
  # the listing of checkpoint files, for bytes per batch by directory
  find "$ckpt" -type f -printf '%T@\t%s\t%P\n' 2>/dev/null > "$out/checkpoint-files-$t.tsv"
  sleep "$interval"
done
echo "UI gone" >&2
