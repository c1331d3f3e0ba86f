#!/usr/bin/env bash
# docs/cluster.md's Slurm recipe on a real Slurm: installs Debian's slurmctld, slurmd and munge,
# starts a one-node cluster on this machine (configuration, key, state and logs in a temporary
# folder; daemons run as root and are stopped at the end), builds and installs the fieldflow .deb,
# and submits the scripts exactly as the doc shows them (extracted from docs/cluster.md) as a
# 3-task array over 6 photos, plus the merge job depending on it. One array task is requeued
# (`scontrol requeue`) while its second image is training; its rerun must skip the image it had
# finished and resume the interrupted one's training from its checkpoint. Checks that nothing is
# lost and that the merged summary equals an unsharded batch of the same folder. Training is tiny
# (photos 96 to 160 pixels wide, 300 steps) on the CPU Vulkan driver (lavapipe).
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$PWD

fail() { echo "slurm: FAIL: $*" >&2; exit 1; }
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# ---- Packages ------------------------------------------------------------------------------
missing=()
for p in slurmctld slurmd slurm-client munge jq; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
scripts/install-deb.sh >/dev/null
echo "slurm: packages and fieldflow installed ($SECONDS s)"
[ "$(command -v fieldflow)" = /usr/bin/fieldflow ] || fail "fieldflow is not installed in /usr/bin"

# Waits up to $1 seconds for the command after it to succeed, polling.
wait_for() {
  local limit=$1; shift
  local end=$((SECONDS + limit))
  until "$@"; do
    [ $SECONDS -lt $end ] || return 1
    sleep 0.2
  done
}

# ---- A one-node cluster --------------------------------------------------------------------
work=$(mktemp -d /tmp/fieldflow-slurm.XXXXXX)
chmod 755 "$work"
pids=()
stop_daemons() {
  local pid
  for pid in "${pids[@]}"; do $sudo kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait_for 30 bash -c "! kill -0 $pid 2>/dev/null" || $sudo kill -9 "$pid" 2>/dev/null || true; done
}
on_exit() {
  local rc=$?
  stop_daemons
  if [ $rc -ne 0 ]; then
    for log in "$work"/*.log "$work"/jobs/*.out; do
      [ -f "$log" ] && { echo "---- $log"; tail -n 30 "$log"; }
    done
  fi
  $sudo rm -rf "$work"
}
trap on_exit EXIT

mkdir -p "$work"/{state,spool,jobs}
# munged (root) keeps its key readable by root alone, and its socket where every user can reach it
# (the jobs and the commands run as the user running this stage).
$sudo install -d -m 700 "$work/munge-key"
$sudo dd if=/dev/urandom of="$work/munge-key/munge.key" bs=1024 count=1 status=none
$sudo chmod 400 "$work/munge-key/munge.key"
$sudo install -d -m 755 "$work/munge"
socket=$work/munge/munge.socket
$sudo /usr/sbin/munged --key-file="$work/munge-key/munge.key" --socket="$socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge.log" --seed-file="$work/munge-key/seed" --force
wait_for 30 test -s "$work/munge/munged.pid" || fail "munged did not start"
pids+=("$(cat "$work/munge/munged.pid")")

host=$(hostname -s)
# The node claims what the doc's script asks of one task, three times over (3 GPUs, 24 CPUs,
# 96 GB): config_overrides keeps Slurm from comparing that with the machine, and nothing is
# enforced (no cgroups), so the script runs unchanged. The GPUs are only counted: every task uses
# Vulkan device 0 (the CPU driver here), as a task confined to its GPU would.
cat >"$work/slurm.conf" <<CONF
ClusterName=fieldflowtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# cred_expire: a requeued job waits this long before it starts again (default 120 s).
AuthInfo=socket=$socket,cred_expire=20
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
# Ended jobs stay visible to scontrol until the checks below have read their states.
MinJobAge=1800
SlurmdParameters=config_overrides
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=24 RealMemory=98304 Gres=gpu:3 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
# Slurm counts a GPU only with a device file: three links to /dev/null.
for i in 0 1 2; do ln -s /dev/null "$work/gpu$i"; done
printf 'AutoDetect=off\nName=gpu File=%s\n' "$work/gpu[0-2]" >"$work/gres.conf"
export SLURM_CONF=$work/slurm.conf
$sudo /usr/sbin/slurmctld -D -f "$SLURM_CONF" >>"$work/slurmctld.log" 2>&1 &
pids+=($!)
$sudo /usr/sbin/slurmd -D -f "$SLURM_CONF" >>"$work/slurmd.log" 2>&1 &
pids+=($!)
node_idle() { [ "$(sinfo -h -n "$host" -o %T 2>/dev/null)" = idle ]; }
wait_for 60 node_idle || fail "the node did not become idle: $(sinfo 2>&1)"
echo "slurm: one-node cluster up ($(sinfo -h -o '%P %D %T %G')) ($SECONDS s)"

# ---- Photos and the doc's scripts ----------------------------------------------------------
photos=$work/photos
results=$work/results
mkdir -p "$photos"
cat >"$work/shrink.yaml" <<'GRAPH'
fieldflow: 1
vars: {input: x, output: x, width: 96}
nodes:
  image: {op: ReadImage, params: {path: "${input}"}}
  small:
    op: Resize
    inputs: {image: image}
    params: {width: "${width}", interpolation: area}
  save: {op: WriteImage, inputs: {image: small}, params: {path: "${output}"}}
GRAPH
for name in leuvenA.jpg graf1.png; do
  for width in 96 128 160; do
    fieldflow run "$work/shrink.yaml" --quiet --no-cache --set input=/usr/share/fieldflow/images/$name \
      --set width=$width --set output="$photos/${name%.*}-$width.png"
  done
done
[ "$(ls "$photos" | wc -l)" -eq 6 ] || fail "expected 6 photos"
echo "slurm: 6 photos made ($SECONDS s)"

# The fenced ```bash blocks of docs/cluster.md: the array script and the merge script.
doc_block() { # doc_block PATTERN: the first bash block containing PATTERN
  awk -v pat="$1" '
    !inside && $0 == "```bash" { inside = 1; block = ""; next }
    inside && $0 == "```" { inside = 0; if (index(block, pat)) { printf "%s", block; exit } next }
    inside { block = block $0 "\n" }' "$src/docs/cluster.md"
}
doc_block "#SBATCH --array" >"$work/jobs/fieldflow-shards.sbatch"
doc_block "--merge" >"$work/jobs/fieldflow-merge.sbatch"
for f in fieldflow-shards.sbatch fieldflow-merge.sbatch; do
  [ -s "$work/jobs/$f" ] || fail "no $f in docs/cluster.md"
done

# The scripts' settings, through the environment (sbatch passes it on). The cache is the "shared
# storage" cache the doc asks for, so the requeued task's training resumes from its checkpoint.
export FIELDFLOW=/usr/bin/fieldflow
export GRAPH=/usr/share/fieldflow/graphs/lake.yaml
export PHOTOS=$photos
export RESULTS=$results
steps=300
# The dense grid: the scripts are checked, not the default model, and its kernels compile fastest.
model_args="--set steps=$steps --set batch=1024 --set encoding=dense_grid"
export FIELDFLOW_ARGS="$model_args --cache $work/cache"
# Progress lines every half second rather than every 5: the requeue below waits for the second
# image's first line past step 0, and with lines 5 s apart that line could come so late (step 252 of
# 300 on a loaded CI machine) that the training ended before the requeue reached the task, which
# then had no checkpoint to resume from.
export FIELDFLOW_PROGRESS_SECONDS=0.5
unset FIELDFLOW_PLUGIN_PATH

# ---- Submit as the doc says, with 3 shards -------------------------------------------------
cd "$work/jobs"
start=$SECONDS
array=$(sbatch --parsable --array=0-2 fieldflow-shards.sbatch)
merge=$(sbatch --parsable --dependency=afterany:$array fieldflow-merge.sbatch)
echo "slurm: submitted array $array (3 tasks) and merge $merge"

# Requeue task 1 once its first image is finished and its second one has trained some steps
# (its log, written as it runs, shows a training progress line past step 0).
shard1=$results/shard-1
first_done="" in_flight=""
second_training() {
  [ -f "$shard1/manifest.jsonl" ] && [ "$(wc -l <"$shard1/manifest.jsonl")" -eq 1 ] || return 1
  first_done=$(jq -r .stem "$shard1/manifest.jsonl")
  local log
  for log in "$shard1"/logs/*.log; do
    [ "$(basename "$log" .log)" != "$first_done" ] || continue
    grep -Eq "^train \[[^]]*\] [1-9][0-9]*/$steps " "$log" || continue
    in_flight=$(basename "$log" .log)
    return 0
  done
  return 1
}
wait_for 240 second_training || fail "task 1 never had its second image training"
scontrol requeue "${array}_1"
echo "slurm: requeued ${array}_1 after $((SECONDS - start)) s: $first_done done, $in_flight training" \
  "($(grep -Eo "^train \[[^]]*\] [0-9]+/$steps" "$shard1/logs/$in_flight.log" | tail -n 1 | cut -d' ' -f3))"

job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
merge_ended() { case "$(job_state "$merge")" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) ;; *) return 1 ;; esac; }
wait_for 300 merge_ended || fail "the merge job did not end: $(squeue 2>&1)"
echo "slurm: array and merge ended after $((SECONDS - start)) s"
for i in 0 1 2; do
  state=$(job_state "${array}_$i")
  [ "$state" = COMPLETED ] || fail "array task $i ended $state"
done
[ "$(job_state "$merge")" = COMPLETED ] || fail "the merge job ended $(job_state "$merge")"
scontrol show job "${array}_1" | grep -q "Restarts=1" || fail "task 1 was not restarted once"

# ---- The requeued task lost nothing --------------------------------------------------------
# Its second run skipped the finished image, went on with the interrupted one in its partial
# folder, and that image's training went on from the checkpoint written when it was stopped.
out1=$work/jobs/fieldflow-${array}_1.out
grep -q "^skipped $first_done (done in an earlier run)$" "$out1" || fail "the rerun did not skip $first_done: $(cat "$out1")"
grep -q "^resuming $in_flight in the folder of its interrupted run$" "$out1" \
  || fail "the rerun did not resume $in_flight in its partial folder: $(cat "$out1")"
resumed_at=$(sed -n "s/.*resuming from checkpoint at step \([0-9]*\) of $steps.*/\1/p" "$shard1/logs/$in_flight.log")
[ -n "$resumed_at" ] && [ "$resumed_at" -gt 0 ] \
  || fail "$in_flight's training did not resume from a checkpoint: $(cat "$shard1/logs/$in_flight.log")"
echo "slurm: the rerun skipped $first_done and resumed $in_flight's training at step $resumed_at of $steps"
for i in 0 1 2; do
  shard=$results/shard-$i
  [ ! -e "$shard/.partial" ] || fail "shard $i left partial outputs: $(ls -A "$shard/.partial")"
  [ "$(jq -r 'select(.status == "done") | .stem' "$shard/manifest.jsonl" | sort -u | wc -l)" -eq 2 ] \
    || fail "shard $i's manifest does not record 2 done images: $(cat "$shard/manifest.jsonl")"
  for stem in $(jq -r .stem "$shard/manifest.jsonl"); do
    for f in model.ffm prediction.png report.html metrics.json; do
      [ -s "$shard/$stem/$f" ] || fail "shard $i: $stem/$f is missing"
    done
  done
done

# ---- Merged == unsharded -------------------------------------------------------------------
# The same folder in one batch, with its own cache (nothing reused from the shards).
# shellcheck disable=SC2086 # model_args is a list of arguments
fieldflow batch "$GRAPH" --input "$photos" --output "$work/whole" --devices 0 \
  $model_args --cache "$work/cache-whole" --quiet
echo "slurm: unsharded batch done ($SECONDS s)"
# Per image: stem, input, status, error, hashes, steps, device and the bilinear metrics are equal
# (these tell every image of the folder apart); the learned PSNR and SSIM agree to training's
# rounding (the grid gradients are summed by float atomics, docs/engine.md; measured here: at most
# 0.024 dB apart).
differences=$(jq -n -r --slurpfile m "$results/merged/summary.json" --slurpfile w "$work/whole/summary.json" '
  def exact: {stem, input, status, error, input_hash, graph_hash, steps: .metrics.steps,
              device: .metrics.device, psnr_bilinear: .metrics.psnr_bilinear,
              ssim_bilinear: .metrics.ssim_bilinear};
  def abs: if . < 0 then -. else . end;
  def by_stem: .images | map({(.stem): .}) | add;
  ($m[0] | by_stem) as $M | ($w[0] | by_stem) as $W |
  if ($M | keys) != ($W | keys) then "images: merged \($M | keys), unsharded \($W | keys)"
  else $W | keys[] as $s | $M[$s] as $a | $W[$s] as $b |
    (if ($a | exact) != ($b | exact) then "\($s): merged \($a | exact) unsharded \($b | exact)" else empty end),
    (if (($a.metrics.psnr_learned - $b.metrics.psnr_learned) | abs) > 0.1 or
        (($a.metrics.ssim_learned - $b.metrics.ssim_learned) | abs) > 0.01
     then "\($s): learned PSNR/SSIM merged \($a.metrics.psnr_learned)/\($a.metrics.ssim_learned)," +
          " unsharded \($b.metrics.psnr_learned)/\($b.metrics.ssim_learned)" else empty end)
  end')
[ -z "$differences" ] || fail "the merged summary differs from the unsharded batch:
$differences"
[ "$(jq '.totals.done' "$results/merged/summary.json")" -eq 6 ] || fail "the merged summary has not 6 done images"
jq -r --slurpfile w "$work/whole/summary.json" '.images[] | .stem as $s |
  ($w[0].images[] | select(.stem == $s).metrics.psnr_learned) as $u |
  "  \($s): PSNR \(.metrics.psnr_learned) merged, \($u) unsharded"' "$results/merged/summary.json"
echo "slurm: merged summary of 3 shards (one requeued mid-training) equals the unsharded batch (6 images)"
echo "slurm: ok ($((SECONDS)) s)"
