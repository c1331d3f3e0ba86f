#!/usr/bin/env bash
# The GPU benchmark in one device call (repo root on the GPU machine; .gl and .bundle carried, see
# pack.sh). Runs our engine on both kernel paths and the PyTorch peer (eager for a few thousand
# steps, the whole step in a CUDA graph for 40,000) on leuvenA and graf1, then the scaling sweep
# (batch 2^14..2^21 x hidden width 16/32/64/128), and prints the tables (bench/gpu/tables.py).
#   bash bench/gpu/run.sh 2>&1 | tee $OUT/log
# Environment: STEPS (40000), EAGER_STEPS (2000), SCALING_STEPS (300), PARTS (any of "tests ours peers
# scaling groups grads seeds hash hashseeds hashrecipes hashlake gigasteps siren ablate8k ablate wide deferhalf lazyhash grow8k profile8k where8k ahead dispatches ratio8k abenv crossover hashcross envsweep"; default "ours peers scaling"),
# ABLATE_MODELS, ABLATE_BATCHES, ABLATE_PARTS (part ablate),
# SCALING_WIDTHS ("16 32 64 128"), TEST_FILTER (part tests: the gtest filter),
# SCALING_BATCHES (log2 batch: "10 14 16 18 20 21 22"), GROUPS_SWEEP (workgroup counts or "default"),
# GROUPS_MODELS (name=args pairs, ':' for spaces; "lake=") and GROUPS_BATCHES (log2: "14 20") for part groups,
# GIGA_STEPS_CONFIGS ("width:batch:adam:log2_table ...", part gigasteps), HASH_SEEDS ("1-5"),
# HASH_CONFIGS ("small large"), HASH_PAIRED (1: the peer starts from the engine's weights and
# draws its samples, seed by seed), HASH_PEER_RECIPES ("engine"; "issue", "name=flags") and
# HASH_ENGINE_EXTRA (flags, ':' for spaces) for part hashseeds,
# HASH_RECIPES ("name=flags ...", ':' for spaces) and HASH_RECIPE_STEPS (the issue's: 5,000 small,
# 2,000 large) for part hashrecipes (with HASH_SEEDS, HASH_CONFIGS); HALF_MODELS (name=args pairs, ':' for spaces),
# HALF_BATCHES (log2: "14 16 17 18 20 22"), HALF_QUALITY ("log2batch:steps ...": "18:2000 20:1000")
# and HALF_SEEDS ("1 2 3") for part deferhalf (bench/gpu/late.py prints its table); LAZYHASH_LEVELS
# ("1 2 4 16"; empty: none), LAZYHASH_CONFIGS ("log2T:log2batch ..."), LAZYHASH_FORMS ("dense-eager
# dense-lazy") and LAZYHASH_STEP_FACTOR (1: times the late-table steps) for part lazyhash; GROW_OLD_BENCH (a second bench) for part grow8k;
# PROFILE_OTHER_BENCH and PROFILE_EPS ("1e-15 1e-30") for part profile8k; WHERE8K_CONFIGS ("image:name:args",
# ':' for spaces) and WHERE8K_STEPS (6000) for part where8k; AHEAD_OLD_BENCH (a second bench) and
# AHEAD_VISIT_PARTS (FIELDFLOW_VISIT_PARTS values) for part ahead; DISPATCH_RUNS ("image:tag:args ...",
# ':' for spaces) for part dispatches; RATIO_REPEATS (4) for part ratio8k; AB_ENV (a variable's name),
# AB_VALUES ("0 1"), AB_HASH_VALUES (AB_VALUES), AB_IMAGES ("6000x4000 3500x3500"), AB_BATCH_2_16 (0)
# and AB_REPEATS (2) for part abenv (where a visit reads its record: AB_ENV=FIELDFLOW_READ_BESIDE_CLAIM
# AB_VALUES="1 0" AB_BATCH_2_16=1; invocations a sample: AB_ENV=FIELDFLOW_VISIT_PARTS AB_VALUES="2 4 8"
# AB_HASH_VALUES="8 16 32 64" AB_IMAGES=""); CROSSOVER_RUNS ("WxH:log2batch ...") for part crossover;
# CROSSOVER_MODELS ("-"; e.g. "--hidden:16 --hidden:64") for it;
# HASHCROSS_RUNS ("image:scale:log2T:batch ...", batch as log2, or above 30 the batch itself),
# HASHCROSS_FORMS ("dense-eager dense-lazy") and HASHCROSS_STEP_FACTOR (4) for part hashcross;
# ENV_SWEEP_MODELS, ENV_SWEEP_BATCHES, ENV_SWEEP_SETTINGS and ENV_SWEEP_REPEATS for part envsweep.
set -u
cd "$(dirname "$0")/../.."
B=.bundle
RESULTS=${OUT:-/tmp/ff-bench}/results.txt
mkdir -p "$(dirname "$RESULTS")"
: > "$RESULTS"
STEPS=${STEPS:-40000}
EAGER_STEPS=${EAGER_STEPS:-2000}
SCALING_STEPS=${SCALING_STEPS:-300}
PARTS=${PARTS:-"ours peers scaling"}
SCALING_WIDTHS=${SCALING_WIDTHS:-"16 32 64 128"}
SCALING_BATCHES=${SCALING_BATCHES:-"10 14 16 18 20 21 22"}
GROUPS_SWEEP=${GROUPS_SWEEP:-"default 132 264 528 1056"}
RUN_TIMEOUT=${RUN_TIMEOUT:-120} # seconds per benchmark run: a slow configuration cannot eat the call

if ! ldconfig -p | grep -q libvulkan.so.1; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
export FIELDFLOW_CACHE_DIR=/tmp/ffcache PYTHONUNBUFFERED=1
BENCH=$B/bin/ff-engine-bench

{ echo "# date $(date -u +%Y-%m-%d)"; echo "# gpu $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"; } >> "$RESULTS"
python3 -c "import cv2; [cv2.imwrite(f'$B/img/{n}.ppm', cv2.imread(f'$B/img/{f}')) for n, f in [('leuvenA', 'leuvenA.jpg'), ('graf1', 'graf1.png')]]"

run() { # run TAG command...: appends the tag line and the command's JSON lines to RESULTS
  local tag=$1; shift
  echo "# run $tag" >> "$RESULTS"
  echo ">> $tag" >&2
  timeout "$RUN_TIMEOUT" "$@" 2>&1 | grep '^{' | tee -a "$RESULTS" | grep -E '"event":"(result|profile|check_paths|error)"|"peer"' >&2
}

# Late us/step (bench/gpu/late.py) wants a run of max(120, min(3000, 2^24 / batch)) steps reported in
# sixths, after one warm-up run that brings the GPU's clocks up.
late_steps() { local s=$(( (1 << 24) >> $1 )); echo $(( s > 3000 ? 3000 : s < 120 ? 120 : s )); }
warm_up() { $BENCH --image $B/img/leuvenA.ppm --steps 20000 --report-every 20000 --render-repeats 1 > /dev/null 2>&1; }
late_tables() { python3 bench/gpu/late.py "$RESULTS"; python3 bench/gpu/intervals.py "$RESULTS"; }

if [[ " $PARTS " == *" ours "* ]]; then
  for img in leuvenA graf1; do
    run "ours $img coopmat" env FIELDFLOW_KERNEL_PATH=coopmat $BENCH --image $B/img/$img.ppm \
        --steps $STEPS --report-every $STEPS --profile 200 --render-repeats 20 --check-paths
    run "ours $img portable" env FIELDFLOW_KERNEL_PATH=portable $BENCH --image $B/img/$img.ppm \
        --steps $STEPS --report-every $STEPS --profile 200 --render-repeats 20
  done
  # Variants on leuvenA: other coopmat tiles, and the render dispatch through each kernel path.
  for tile in 64 32; do
    run "ours leuvenA coopmat-tile$tile" env FIELDFLOW_KERNEL_PATH=coopmat FIELDFLOW_TRAIN_TILE=$tile \
        $BENCH --image $B/img/leuvenA.ppm --steps $STEPS --report-every $STEPS --profile 200 --render-repeats 2
  done
  for rpath in coopmat portable; do
    run "ours leuvenA coopmat-render-$rpath" env FIELDFLOW_KERNEL_PATH=coopmat FIELDFLOW_RENDER_PATH=$rpath \
        $BENCH --image $B/img/leuvenA.ppm --steps 2000 --report-every 2000 --render-repeats 50
  done
fi
if [[ " $PARTS " == *" peers "* ]]; then
  for img in leuvenA graf1; do
    ext=jpg; [ $img = graf1 ] && ext=png
    run "peer $img" python3 bench/peers/pytorch_field.py --image $B/img/$img.$ext --steps $STEPS \
        --modes graph,eager --eager-steps $EAGER_STEPS
  done
fi
if [[ " $PARTS " == *" tests "* ]]; then
  # The engine's gradient and forward tests (CPU reference, validation layer on) on both kernel paths.
  for path in coopmat portable; do
    echo "# run tests $path" >> "$RESULTS"
    FIELDFLOW_KERNEL_PATH=$path $B/bin/ff_engine_tests --gtest_brief=1 \
        --gtest_filter="${TEST_FILTER:-CpuReference.*:GpuGradients.*:GpuForward.*:Training.*:Resume.*:EncodingAdam.*:TargetImage.*:TrainingMemory.*:RenderBands.*:Device.*:Sampler.*}" \
        > "${OUT:-/tmp/ff-bench}/tests-$path.txt" 2>&1
    echo "{\"event\":\"tests\",\"path\":\"$path\",\"exit\":$?}" | tee -a "$RESULTS" >&2
  done
fi
# The hash grids measured here: 16 levels x 2 features from base 16, at Instant-NGP's rate; each
# model adds its table and per-level scale.
HASH_16X2="--encoding hash_grid --hash-levels 16 --hash-features 2 --hash-base 16 --lr-mlp 0.01 --lr-grid 0.01"
HASH_SMALL="$HASH_16X2 --hash-log2-table 12 --hash-scale 1.3"
HASH_LARGE="$HASH_16X2 --hash-log2-table 15 --hash-scale 1.3 --hidden 64"
# The gigapixel graph's model (2^22 rows a level, per-level scale 1.65), for the lazy forms' runs on
# the 8192x8192 mosaic.
GIGA_HASH="$HASH_16X2 --hash-log2-table 22 --hash-scale 1.65"
if [[ " $PARTS " == *" scaling "* ]]; then
  for hidden in $SCALING_WIDTHS; do
    for e in $SCALING_BATCHES; do
      run "scaling dense $hidden $((1 << e))" $BENCH --image $B/img/leuvenA.ppm --steps $SCALING_STEPS \
          --batch $((1 << e)) --hidden $hidden --report-every $SCALING_STEPS --render-repeats 1
    done
  done
  for e in $SCALING_BATCHES; do
    run "scaling hash 64 $((1 << e))" $BENCH --image $B/img/leuvenA.ppm --steps $SCALING_STEPS \
        --batch $((1 << e)) $HASH_LARGE --report-every $SCALING_STEPS --render-repeats 1
  done
fi
if [[ " $PARTS " == *" groups "* ]]; then
  # Persistent workgroups: how many the training kernel launches (FIELDFLOW_TRAIN_GROUPS; "default"
  # is the engine's choice), per model (GROUPS_MODELS, name=args) and log2 batch (GROUPS_BATCHES):
  # late us/step (bench/gpu/late.py) after a warm-up run.
  warm_up
  for model in ${GROUPS_MODELS:-lake=}; do
    name=${model%%=*}; margs=${model#*=}; margs=${margs//:/ }
    for e in ${GROUPS_BATCHES:-14 20}; do
      steps=$(late_steps $e)
      for g in $GROUPS_SWEEP; do
        env_groups=(); [ "$g" = default ] || env_groups=(FIELDFLOW_TRAIN_GROUPS=$g)
        run "groups $name $((1 << e)) $g" env "${env_groups[@]}" $BENCH --image $B/img/leuvenA.ppm $margs \
            --steps $steps --batch $((1 << e)) --report-every $((steps / 6)) --render-repeats 1
      done
    done
  done
  python3 bench/gpu/late.py "$RESULTS"
fi
if [[ " $PARTS " == *" grads "* ]]; then
  # Where the tensor-core step keeps a subgroup's gradient sums (FIELDFLOW_TRAIN_GRADS), width 64.
  for where in registers memory; do
    for e in 14 20; do
      run "grads $where 64 $((1 << e))" env FIELDFLOW_TRAIN_GRADS=$where $BENCH --image $B/img/leuvenA.ppm \
          --steps $SCALING_STEPS --batch $((1 << e)) --hidden 64 --report-every $SCALING_STEPS --render-repeats 1
    done
  done
fi
if [[ " $PARTS " == *" seeds "* ]]; then
  # The lake configuration's quality over seeds 1-10 at 40,000 steps.
  for img in leuvenA graf1; do
    for seed in 1 2 3 4 5 6 7 8 9 10; do
      run "seeds $img $seed" $BENCH --image $B/img/$img.ppm --steps $STEPS --seed $seed \
          --report-every $STEPS --render-repeats 1
    done
  done
fi
# The engine's training schedule and initial hidden bias, so that the peer trains the same model.
PEER_AS_ENGINE="--lr-mlp 0.01 --lr-grid 0.01 --warmup 0.0125 --final-scale 0.03 --hidden-bias 0.1"
if [[ " $PARTS " == *" hash "* ]]; then
  # The hash_grid model against the PyTorch peer of the same model, same steps (issue figures:
  # T=2^12 32x2 at 5,000 steps, T=2^15 64x2 at 2,000).
  for img in leuvenA graf1; do
    ext=jpg; [ $img = graf1 ] && ext=png
    run "hash small $img" $BENCH --image $B/img/$img.ppm --steps 5000 $HASH_SMALL --report-every 5000 \
        --render-repeats 5 --profile 200
    run "hash large $img" $BENCH --image $B/img/$img.ppm --steps 2000 $HASH_LARGE --report-every 2000 \
        --render-repeats 5 --profile 200
    run "peer hash small $img" python3 bench/peers/pytorch_field.py --image $B/img/$img.$ext \
        --steps 5000 --modes graph --encoding hash_grid --hash-log2-table 12 --hidden 32 $PEER_AS_ENGINE
    run "peer hash large $img" python3 bench/peers/pytorch_field.py --image $B/img/$img.$ext \
        --steps 2000 --modes graph --encoding hash_grid --hash-log2-table 15 --hidden 64 $PEER_AS_ENGINE
  done
fi
if [[ " $PARTS " == *" hashseeds "* ]]; then
  # The hash configurations over seeds (HASH_SEEDS, default 1-5), ours and the peer's, for means
  # rather than one draw; HASH_CONFIGS picks "small" and/or "large". The peer takes every seed in
  # one process (--seeds), one result line each.
  first_seed=${HASH_SEEDS:-1-5}; last_seed=${first_seed#*-}; first_seed=${first_seed%-*}
  for img in leuvenA graf1; do
    ext=jpg; [ $img = graf1 ] && ext=png
    for config in ${HASH_CONFIGS:-small large}; do
      if [ $config = small ]; then steps=5000 flags=$HASH_SMALL peer="--hash-log2-table 12 --hidden 32"
      else steps=2000 flags=$HASH_LARGE peer="--hash-log2-table 15 --hidden 64"; fi
      # HASH_PAIRED=1: the peer starts from each seed's engine weights and draws its samples.
      init=/tmp/ff-hashseeds/${config}_${img}_s; mkdir -p /tmp/ff-hashseeds
      save=(); pair=(); engine_extra=${HASH_ENGINE_EXTRA:-}
      [ "${HASH_PAIRED:-0}" = 1 ] && pair=(--init "${init}{seed}" --sampler pcg)
      for seed in $(seq "$first_seed" "$last_seed"); do
        [ "${HASH_PAIRED:-0}" = 1 ] && save=(--save-init "$init$seed")
        run "hashseeds $config $img $seed" $BENCH --image $B/img/$img.ppm --steps $steps --seed $seed \
            $flags ${engine_extra//:/ } --report-every $steps --render-repeats 1 "${save[@]}"
      done
      # HASH_PEER_RECIPES: "engine" (the peer given the engine's schedule, initial hidden bias and
      # sigmoid output: the same model and recipe), "issue" (issue 13's PyTorch recipe: no warm-up,
      # no hidden bias, decay to 0.1x, linear output) and/or "name=flags" (':' for spaces; with
      # HASH_ENGINE_EXTRA, flags the engine's runs add, the same recipe on both sides).
      for recipe in ${HASH_PEER_RECIPES:-engine}; do
        # (the issue's recipe starts from the peer's own weights: it has no hidden bias)
        case $recipe in
          engine) as=($PEER_AS_ENGINE "${pair[@]}") ;;
          issue) as=(--output linear) ;;
          *=*) extra=${recipe#*=}; as=(${extra//:/ } "${pair[@]}"); recipe=${recipe%%=*} ;;
        esac
        run "peer hashseeds $config $img $first_seed-$last_seed $recipe" python3 bench/peers/pytorch_field.py \
            --image $B/img/$img.$ext --steps $steps --modes graph --seeds "$first_seed-$last_seed" \
            --encoding hash_grid $peer "${as[@]}"
      done
    done
  done
fi
if [[ " $PARTS " == *" hashrecipes "* ]]; then
  # The hash configurations' training recipes over seeds (HASH_SEEDS): HASH_RECIPES is
  # "name=flags ..." (':' for spaces in the flags, "-" for none), each added to the config's flags;
  # `python3 bench/gpu/recipes.py $OUT/results.txt` prints the means.
  first_seed=${HASH_SEEDS:-1-5}; last_seed=${first_seed#*-}; first_seed=${first_seed%-*}
  for img in leuvenA graf1; do
    for config in ${HASH_CONFIGS:-small large}; do
      if [ $config = small ]; then steps=5000 flags=$HASH_SMALL; else steps=2000 flags=$HASH_LARGE; fi
      steps=${HASH_RECIPE_STEPS:-$steps}
      for recipe in ${HASH_RECIPES:-"engine=-"}; do
        name=${recipe%%=*} extra=${recipe#*=}; [ "$extra" = - ] && extra=""
        for seed in $(seq "$first_seed" "$last_seed"); do
          run "hashrecipe $config $img $name $seed" $BENCH --image $B/img/$img.ppm --steps $steps --seed $seed \
              $flags ${extra//:/ } --report-every $steps --render-repeats 1
        done
      done
    done
  done
fi
if [[ " $PARTS " == *" hashlake "* ]]; then
  # What `fieldflow run graphs/lake.yaml --set encoding=hash` trains: the hash defaults at the lake's
  # 40,000 steps and the engine's default rates (3e-2), and at the hash rate 1e-2.
  for img in leuvenA graf1; do
    run "hashlake default-lr $img" $BENCH --image $B/img/$img.ppm --steps $STEPS --encoding hash_grid \
        --report-every $STEPS --render-repeats 1
    run "hashlake lr1e-2 $img" $BENCH --image $B/img/$img.ppm --steps $STEPS $HASH_SMALL \
        --report-every $STEPS --render-repeats 1
  done
fi
# mosaic W H PATH: a W x H PPM tiled with 1000x1000 squares of the two sample photos.
mosaic() {
  python3 - "$B/img" "$1" "$2" "$3" <<'PY'
import sys, cv2, numpy as np
src, w, h, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
tiles = []
for p in (cv2.imread(f"{src}/leuvenA.jpg"), cv2.imread(f"{src}/graf1.png")):
    side = min(p.shape[:2])
    y0, x0 = (p.shape[0] - side) // 2, (p.shape[1] - side) // 2
    tiles.append(cv2.resize(p[y0:y0 + side, x0:x0 + side], (1000, 1000), interpolation=cv2.INTER_AREA))
nx, ny = (w + 999) // 1000, (h + 999) // 1000
rows = [np.hstack([tiles[(r + c) % 2] for c in range(nx)])[:, :w] for r in range(2)]  # the two that alternate
cv2.imwrite(path, np.vstack([rows[r % 2] for r in range(ny)])[:h])
PY
}
if [[ " $PARTS " == *" siren "* ]]; then
  # SIRENs (omega 30) trained on each kernel path: width:layers:rate, on both photos.
  for img in leuvenA graf1; do
    for cfg in ${SIREN_CONFIGS:-64:3:1e-4 64:3:1e-3 32:3:1e-3 64:5:1e-4 16:2:1e-3}; do
      IFS=: read -r width layers lr <<< "$cfg"
      for path in portable coopmat; do
        run "siren $img $width:$layers:$lr $path" env FIELDFLOW_SIREN_PATH=$path $BENCH --image $B/img/$img.ppm \
            --model siren --hidden $width --layers $layers --lr-mlp $lr --steps ${SIREN_STEPS:-10000} \
            --report-every ${SIREN_STEPS:-10000} --render-repeats 1
      done
    done
  done
fi
if [[ " $PARTS " == *" ablate8k "* ]]; then
  # Where the 8192x8192 step's time goes (FIELDFLOW_TRAIN_ABLATE), against leuvenA's.
  mosaic 8192 8192 /tmp/m8192.ppm
  for img in $B/img/leuvenA.ppm /tmp/m8192.ppm; do
    for part in none inputs encoding_backward backward; do
      ablate=$part; [ $part = none ] && ablate=
      run "ablate8k $(basename $img .ppm) $part" env FIELDFLOW_TRAIN_ABLATE=$ablate $BENCH --image $img \
          --steps 2000 --report-every 2000 --render-repeats 1 --profile 200
    done
  done
fi
if [[ " $PARTS " == *" ablate "* ]]; then
  # Where a step's time goes per model and batch (FIELDFLOW_TRAIN_ABLATE parts, "none" = whole step).
  # ABLATE_MODELS: name=args pairs; ABLATE_BATCHES: log2 batches; ABLATE_PARTS: the parts.
  for model in ${ABLATE_MODELS:-lake= w64=--hidden:64 hash=--encoding:hash_grid:--hash-log2-table:15:--hidden:64}; do
    name=${model%%=*}; margs=${model#*=}; margs=${margs//:/ }
    for lb in ${ABLATE_BATCHES:-14 20}; do
      for part in ${ABLATE_PARTS:-none inputs encoding_backward backward mlp}; do
        ablate=$part; [ $part = none ] && ablate=
        run "ablate $name $((1 << lb)) $part" env FIELDFLOW_TRAIN_ABLATE=$ablate $BENCH --image $B/img/leuvenA.ppm \
            $margs --batch $((1 << lb)) --steps 300 --report-every 300 --render-repeats 1 --profile 100
      done
    done
  done
fi
if [[ " $PARTS " == *" wide "* ]]; then
  # MLPs whose fp16 weights do not fit shared memory beside a tile (width 128, deep SIRENs): the
  # tensor-core kernels reading them from memory, per batch and workgroup count, against the
  # portable kernels; then the SIRENs' quality on each path.
  for lb in 14 16 18 20; do
    for groups in ${WIDE_GROUPS:-default 264 1056 2048}; do
      env_groups=(); [ "$groups" = default ] || env_groups=(FIELDFLOW_TRAIN_GROUPS=$groups)
      run "wide 128 $((1 << lb)) coopmat groups $groups" env "${env_groups[@]}" $BENCH --image $B/img/leuvenA.ppm \
          --hidden 128 --batch $((1 << lb)) --steps 300 --report-every 300 --render-repeats 1 --profile 100
    done
  done
  run "wide 128 16384 portable" env FIELDFLOW_KERNEL_PATH=portable $BENCH --image $B/img/leuvenA.ppm --hidden 128 \
      --steps 300 --report-every 300 --render-repeats 1
  for cfg in ${WIDE_QUALITY:-128:2:dense 64:5:siren}; do
    IFS=: read -r width layers model <<< "$cfg"
    args=(--hidden $width --layers $layers); [ $model = siren ] && args+=(--model siren --lr-mlp 1e-4)
    for path in portable coopmat; do
      run "wide quality $model $width:$layers $path" env FIELDFLOW_KERNEL_PATH=$path $BENCH --image $B/img/leuvenA.ppm \
          "${args[@]}" --steps ${WIDE_STEPS:-5000} --report-every ${WIDE_STEPS:-5000} --render-repeats 5
    done
  done
fi
if [[ " $PARTS " == *" gigasteps "* ]]; then
  # The step cost of graphs/gigapixel.yaml's model (hash grid 16 x 2 x 2^table, finest level 29,000
  # cells) on a 30000x30000 mosaic of the two sample photos, per MLP width, batch, form of the
  # encoding's Adam and table size (the image is 3.6 GB as RGBA8: two buffers of 2 GB on NVIDIA).
  mosaic 30000 30000 /tmp/giga.ppm
  GIGA="$HASH_16X2 --hash-scale 1.65"
  for cfg in ${GIGA_STEPS_CONFIGS:-32:65536:dense:20 32:262144:dense:20 32:65536:dense:22 32:262144:dense:22 32:262144:sparse:22 32:65536:dense:24 64:262144:dense:22 32:1048576:dense:22}; do
    IFS=: read -r width batch adam table <<< "$cfg"
    run "gigasteps $width $batch $adam $table" $BENCH --image /tmp/giga.ppm $GIGA --hash-log2-table "$table" \
        --hidden "$width" --batch "$batch" --grid-adam "$adam" --steps 300 --report-every 300 --render-repeats 1 --profile 100
  done
fi
if [[ " $PARTS " == *" lazyhash "* ]]; then
  # The hash grid's lazy dense Adam on the 8192x8192 mosaic (graphs/gigapixel.yaml's model, MLP 32x2)
  # per level count (a sample reads 4 cells a level), then eager against lazy per table size and
  # log2 batch (LAZYHASH_CONFIGS, log2T:log2batch), for the crossover.
  mosaic 8192 8192 /tmp/m8192.ppm
  GIGA="--encoding hash_grid --hash-features 2 --hash-base 16 --hash-scale 1.65 --lr-mlp 0.01 --lr-grid 0.01 --hidden 32"
  warm_up
  for levels in ${LAZYHASH_LEVELS-1 2 4 16}; do
    run "lazyhash levels $levels 16384" $BENCH --image /tmp/m8192.ppm $GIGA \
        --hash-levels $levels --hash-log2-table 22 --grid-adam dense-lazy --batch 16384 --steps 1024 \
        --report-every 170 --render-repeats 1
  done
  for cfg in ${LAZYHASH_CONFIGS:-22:14 22:15 22:16 22:17 20:14 20:15}; do
    IFS=: read -r table lb <<< "$cfg"
    steps=$(( $(late_steps $lb) * ${LAZYHASH_STEP_FACTOR:-1} ))
    for form in ${LAZYHASH_FORMS:-dense-eager dense-lazy}; do
      run "lazyhash crossover $table $((1 << lb)) $form" $BENCH \
          --image /tmp/m8192.ppm $GIGA --hash-levels 16 --hash-log2-table $table --grid-adam $form \
          --batch $((1 << lb)) --steps $steps --report-every $((steps / 6)) --render-repeats 1
    done
  done
  python3 bench/gpu/late.py "$RESULTS"
fi
if [[ " $PARTS " == *" hashcross "* ]]; then
  # The hash grid's eager pass against its lazy form (visits ahead), per HASHCROSS_RUNS entry
  # "image:per-level scale:log2 table:batch" (image: leuvenA or m8192, the 8192x8192 mosaic; the
  # batch as log2, or above 30 the batch itself; HASH_16X2 with an MLP 32x2), HASHCROSS_STEP_FACTOR
  # (4) times the late-table steps.
  mosaic 8192 8192 /tmp/m8192.ppm
  cp $B/img/leuvenA.ppm /tmp/leuvenA.ppm
  warm_up
  for r in ${HASHCROSS_RUNS:-"leuvenA:1.3:20:11 leuvenA:1.3:20:12 leuvenA:1.3:20:13 leuvenA:1.3:20:14 m8192:1.65:20:16 m8192:1.65:21:17"}; do
    IFS=: read -r img scale table lb <<< "$r"
    # The batch as log2, or (above 30) as the batch itself.
    batch=$(( lb > 30 ? lb : 1 << lb )) name="2^$lb"
    if [ "$lb" -gt 30 ]; then name=$lb; lb=0; while [ $(( 2 << lb )) -le "$batch" ]; do lb=$((lb + 1)); done; fi
    steps=$(( $(late_steps $lb) * ${HASHCROSS_STEP_FACTOR:-4} ))
    for adam in ${HASHCROSS_FORMS:-dense-eager dense-lazy}; do
      run "hashcross $img $scale 2^$table $name $adam" $BENCH --image /tmp/$img.ppm $HASH_16X2 \
          --hash-scale $scale --hash-log2-table $table --hidden 32 --grid-adam $adam --batch $batch \
          --steps $steps --report-every $((steps / 6)) --render-repeats 1
    done
  done
  late_tables
fi
if [[ " $PARTS " == *" grow8k "* ]]; then
  # The 8192x8192 mosaic's step over a 40,000-step run (lake model; progress every twelfth, so that
  # bench/gpu/intervals.py shows how the step's cost moves through the run): the default, epsilon
  # 1e-30 (lazy Adam's skipped steps all in closed form), sparse Adam, and GROW_OLD_BENCH (a bench
  # built from an older commit, if given); leuvenA beside them.
  mosaic 8192 8192 /tmp/m8192.ppm
  warm_up
  every=$(( STEPS / 12 ))
  run "grow8k leuvenA default" $BENCH --image $B/img/leuvenA.ppm --steps $STEPS --report-every $every --render-repeats 1
  run "grow8k m8192 default" $BENCH --image /tmp/m8192.ppm --steps $STEPS --report-every $every --render-repeats 1
  run "grow8k m8192 eps1e-30" $BENCH --image /tmp/m8192.ppm --eps 1e-30 --steps $STEPS --report-every $every --render-repeats 1
  run "grow8k m8192 sparse" $BENCH --image /tmp/m8192.ppm --grid-adam sparse --steps $STEPS --report-every $every --render-repeats 1
  if [ -n "${GROW_OLD_BENCH:-}" ]; then
    run "grow8k m8192 old" $GROW_OLD_BENCH --image /tmp/m8192.ppm --steps $STEPS --report-every $every --render-repeats 1
  fi
  run "grow8k m8192 default again" $BENCH --image /tmp/m8192.ppm --steps $STEPS --report-every $every --render-repeats 1
  python3 bench/gpu/intervals.py "$RESULTS"
fi
if [[ " $PARTS " == *" profile8k "* ]]; then
  # The 8192x8192 mosaic's dispatches (--profile: a timestamp after each) late in a 12,000-step run,
  # for this bench and PROFILE_OTHER_BENCH, with the default epsilon and 1e-30.
  mosaic 8192 8192 /tmp/m8192.ppm
  warm_up
  for bench in $BENCH ${PROFILE_OTHER_BENCH:-}; do
    for eps in ${PROFILE_EPS:-1e-15 1e-30}; do
      run "profile8k $(basename $bench) eps $eps" $bench --image /tmp/m8192.ppm --eps $eps --steps 12000 \
          --report-every 2000 --render-repeats 1 --profile 200
    done
  done
fi
if [[ " $PARTS " == *" deferhalf "* ]]; then
  # The deferred sums' inputs as fp16 (the default) against floats (FIELDFLOW_DEFERRED_HALF=0), per
  # hash model and batch: late us/step and the trainer's device memory (bench/gpu/late.py), after a
  # warm-up run; then the PSNR at large batches over HALF_SEEDS.
  half_models=${HALF_MODELS:-"hash=--encoding:hash_grid:--hash-levels:16:--hash-features:2:--hash-log2-table:15:--hidden:64 small=--encoding:hash_grid:--hash-levels:16:--hash-features:2:--hash-log2-table:12:--hidden:32"}
  warm_up
  for model in $half_models; do
    name=${model%%=*}; margs=${model#*=}; margs=${margs//:/ }
    for lb in ${HALF_BATCHES:-14 16 17 18 20 22}; do
      steps=$(late_steps $lb)
      for half in 0 1; do
        run "deferhalf $name $((1 << lb)) $half" env FIELDFLOW_DEFERRED_HALF=$half $BENCH --image $B/img/leuvenA.ppm \
            $margs --batch $((1 << lb)) --steps $steps --report-every $((steps / 6)) --render-repeats 1
      done
    done
  done
  for model in $half_models; do
    name=${model%%=*}; margs=${model#*=}; margs=${margs//:/ }
    for cfg in ${HALF_QUALITY:-18:2000 20:1000}; do
      IFS=: read -r lb steps <<< "$cfg"
      for img in leuvenA graf1; do
        for seed in ${HALF_SEEDS:-1 2 3}; do
          for half in 0 1; do
            run "halfpsnr $name $img $((1 << lb)) $seed $half" env FIELDFLOW_DEFERRED_HALF=$half $BENCH \
                --image $B/img/$img.ppm $margs --seed $seed --batch $((1 << lb)) --steps $steps --report-every $steps \
                --render-repeats 1
          done
        done
      done
    done
  done
  python3 bench/gpu/late.py "$RESULTS"
fi
if [[ " $PARTS " == *" where8k "* ]]; then
  # Where the large photo's step goes: the 8192x8192 mosaic against leuvenA, each optimizer form,
  # and grids that do (divisor 16: 262 K cells, 16 MB of state) or do not (4: 4.2 M cells) fit the
  # L2 cache; late us/step and each dispatch's time (--profile) after a warm-up run.
  mosaic 8192 8192 /tmp/m8192.ppm
  warm_up
  for cfg in ${WHERE8K_CONFIGS:-"m8192:default:" "m8192:sparse:--grid-adam:sparse" "m8192:eager:--grid-adam:dense-eager" \
      "m8192:d16-lazy:--grid-divisor:16:--grid-adam:dense-lazy" "m8192:d16-eager:--grid-divisor:16:--grid-adam:dense-eager" \
      "m8192:d43:--grid-divisor:43" "leuvenA:default:" "leuvenA:lazy:--grid-adam:dense-lazy" "leuvenA:sparse:--grid-adam:sparse"}; do
    IFS=: read -r img name margs <<< "$cfg"; margs=${margs//:/ }
    path=/tmp/$img.ppm; [ $img = leuvenA ] && path=$B/img/leuvenA.ppm
    run "where8k $img $name" $BENCH --image $path $margs --steps ${WHERE8K_STEPS:-6000} \
        --report-every $(( ${WHERE8K_STEPS:-6000} / 6 )) --render-repeats 1 --profile 200
  done
  python3 bench/gpu/late.py "$RESULTS"
  python3 -c 'import json,sys
sys.path.insert(0, "bench/gpu"); import late
for tag, events in late.runs_in(sys.argv[1]):
    for e in events:
        if e.get("event") == "profile": print(tag, json.dumps(e))' "$RESULTS"
fi
if [[ " $PARTS " == *" ahead "* ]]; then
  # Lazy dense Adam (this bench) against AHEAD_OLD_BENCH (another build's bench), on the mosaics and
  # leuvenA at 2^14 and 2^16, a 40,000-step run each on the 8192x8192 mosaic, and the hash grid's
  # lazy form there.
  mosaic 8192 8192 /tmp/m8192.ppm
  mosaic 6000 4000 /tmp/m6000x4000.ppm
  mosaic 3500 3500 /tmp/m3500.ppm
  warm_up
  benches="new=$BENCH"; [ -n "${AHEAD_OLD_BENCH:-}" ] && benches="$benches old=$AHEAD_OLD_BENCH"
  for rep in 1 2; do
    for b in $benches; do
      run "ahead m8192 2^14 ${b%%=*} $rep" ${b#*=} --image /tmp/m8192.ppm --steps 12000 --report-every 2000 --render-repeats 1
    done
  done
  for parts in ${AHEAD_VISIT_PARTS:-}; do
    run "ahead m8192 2^14 new visit-parts $parts" env FIELDFLOW_VISIT_PARTS=$parts $BENCH --image /tmp/m8192.ppm \
        --steps 12000 --report-every 2000 --render-repeats 1
  done
  for b in $benches; do
    for img in m6000x4000 m3500; do
      run "ahead $img 2^14 ${b%%=*}" ${b#*=} --image /tmp/$img.ppm --steps 12000 --report-every 2000 --render-repeats 1
    done
    run "ahead m8192 2^16 ${b%%=*}" ${b#*=} --image /tmp/m8192.ppm --batch 65536 --steps 3000 --report-every 500 --render-repeats 1
    run "ahead leuvenA 2^14 ${b%%=*}" ${b#*=} --image $B/img/leuvenA.ppm --steps 6000 --report-every 1000 --render-repeats 1
    run "ahead m8192 40k ${b%%=*}" ${b#*=} --image /tmp/m8192.ppm --steps 40000 --report-every 3333 --render-repeats 1
  done
  run "ahead hash m8192 2^14" $BENCH --image /tmp/m8192.ppm $GIGA_HASH \
      --grid-adam dense-lazy --steps 1024 --report-every 128 --render-repeats 1
  late_tables
fi
if [[ " $PARTS " == *" dispatches "* ]]; then
  # Each dispatch's GPU time (--profile-warm: 1,000 steps straight after 12,000, on warm clocks) per
  # photo size and encoding optimizer: where a large photo's step goes.
  mosaic 8192 8192 /tmp/m8192.ppm
  mosaic 3500 3500 /tmp/m3500.ppm
  mosaic 1448 1448 /tmp/m1448.ppm
  cp $B/img/leuvenA.ppm /tmp/leuvenA.ppm
  warm_up
  runs=${DISPATCH_RUNS:-"leuvenA:eager:--grid-adam:dense-eager leuvenA:lazy:--grid-adam:dense-lazy m1448:eager:--grid-adam:dense-eager m1448:lazy:--grid-adam:dense-lazy m3500:lazy: m8192:lazy: m8192:sparse:--grid-adam:sparse m8192:lazy2:"}
  for r in $runs; do
    IFS=: read -r img tag args <<< "$r"
    run "dispatches $img $tag" $BENCH --image /tmp/$img.ppm --steps 12000 --report-every 2000 --render-repeats 1 \
        --profile-warm 1000 ${args//:/ }
  done
  python3 bench/gpu/late.py "$RESULTS"
  grep -h '"profile"\|^# run dispatches' "$RESULTS"
fi
if [[ " $PARTS " == *" ratio8k "* ]]; then
  # Issue 14's ratio: the 8192x8192 mosaic's step against leuvenA's, runs interleaved (12,000 steps,
  # RATIO_REPEATS of each), then the main job's 40,000 steps on each, twice.
  mosaic 8192 8192 /tmp/m8192.ppm
  warm_up
  for rep in $(seq 1 ${RATIO_REPEATS:-4}); do
    run "ratio8k leuvenA 12k $rep" $BENCH --image $B/img/leuvenA.ppm --steps 12000 --report-every 2000 --render-repeats 1
    run "ratio8k m8192 12k $rep" $BENCH --image /tmp/m8192.ppm --steps 12000 --report-every 2000 --render-repeats 1
  done
  for rep in 1 2; do
    run "ratio8k leuvenA 40k $rep" $BENCH --image $B/img/leuvenA.ppm --steps 40000 --report-every 3333 --render-repeats 1
    run "ratio8k m8192 40k $rep" $BENCH --image /tmp/m8192.ppm --steps 40000 --report-every 3333 --render-repeats 1
  done
  late_tables
fi
if [[ " $PARTS " == *" abenv "* ]]; then
  # One engine switch (AB_ENV) at each of AB_VALUES, interleaved: leuvenA and the 8192x8192 mosaic
  # (12,000 steps, AB_REPEATS times); then per value the mosaics of AB_IMAGES ("6000x4000 3500x3500"),
  # the 8192x8192 mosaic at 2^16 (AB_BATCH_2_16=1) and the gigapixel model's hash grid on it (at
  # AB_HASH_VALUES, default AB_VALUES).
  mosaic 8192 8192 /tmp/m8192.ppm
  ab_images=${AB_IMAGES-"6000x4000 3500x3500"}
  for size in $ab_images; do mosaic ${size%x*} ${size#*x} /tmp/m$size.ppm; done
  warm_up
  ab_values=${AB_VALUES:-"0 1"}
  ab_hash_values=${AB_HASH_VALUES:-$ab_values}
  for rep in $(seq 1 ${AB_REPEATS:-2}); do
    for v in $ab_values; do
      run "abenv leuvenA $v $rep" env $AB_ENV=$v $BENCH --image $B/img/leuvenA.ppm --steps 12000 --report-every 2000 --render-repeats 1
      run "abenv m8192 $v $rep" env $AB_ENV=$v $BENCH --image /tmp/m8192.ppm --steps 12000 --report-every 2000 --render-repeats 1
    done
  done
  for v in $ab_values; do
    for size in $ab_images; do
      run "abenv m$size $v" env $AB_ENV=$v $BENCH --image /tmp/m$size.ppm --steps 12000 --report-every 2000 --render-repeats 1
    done
    [ "${AB_BATCH_2_16:-0}" = 1 ] && run "abenv m8192 2^16 $v" env $AB_ENV=$v $BENCH --image /tmp/m8192.ppm --batch 65536 \
        --steps 6000 --report-every 1000 --render-repeats 1
  done
  for v in $ab_hash_values; do
    run "abenv hash m8192 $v" env $AB_ENV=$v $BENCH --image /tmp/m8192.ppm $GIGA_HASH --grid-adam dense-lazy \
        --steps 2048 --report-every 256 --render-repeats 1
  done
  late_tables
fi
if [[ " $PARTS " == *" crossover "* ]]; then
  # The dense grid's eager pass against its lazy form, where the grid's cells outnumber a step's
  # reads 2-4 times (cells = pixels / 16, reads = 4 batch): mosaics per CROSSOVER_RUNS entry, each
  # run once per entry of CROSSOVER_MODELS (extra arguments, ':' for spaces; "-" none, the default).
  warm_up
  for r in ${CROSSOVER_RUNS:-1920x1080:14 1448x1448:14 1619x1619:14 1774x1774:14 2560x1440:14 2048x2048:14 2896x2896:16 3238x3238:16}; do
    size=${r%:*} lb=${r#*:}
    mosaic ${size%x*} ${size#*x} /tmp/c$size.ppm
    steps=$(( lb > 14 ? 3000 : 12000 ))
    for model in ${CROSSOVER_MODELS:--}; do
      args=${model//:/ }
      [ "$model" = - ] && args=
      for adam in dense-eager dense-lazy; do
        run "crossover $size 2^$lb ${model//:/} $adam" $BENCH --image /tmp/c$size.ppm --batch $((1 << lb)) --grid-adam $adam \
            --steps $steps --report-every $((steps / 6)) --render-repeats 1 $args
      done
    done
  done
  late_tables
fi
if [[ " $PARTS " == *" envsweep "* ]]; then
  # Engine switches (environment settings) against each other: for each model of ENV_SWEEP_MODELS
  # (name=args, ':' for spaces; "hash" the 64-wide hash model) and log2 batch of ENV_SWEEP_BATCHES,
  # one late-us/step run per entry of ENV_SWEEP_SETTINGS ("default", or VAR=value pairs joined by
  # ','), ENV_SWEEP_REPEATS times interleaved. The kernels' registers and spills
  # (FIELDFLOW_PIPELINE_STATS) go to $OUT/envsweep-stats.txt.
  export STATS=${OUT:-/tmp/ff-bench}/envsweep-stats.txt
  warm_up
  for model in ${ENV_SWEEP_MODELS:-w128=--hidden:128}; do
    name=${model%%=*}; margs=${model#*=}; margs=${margs//:/ }
    [ "$name" = hash ] && margs=$HASH_LARGE
    for e in ${ENV_SWEEP_BATCHES:-14 16 18 20}; do
      steps=$(late_steps $e)
      for rep in $(seq 1 ${ENV_SWEEP_REPEATS:-1}); do
        for setting in ${ENV_SWEEP_SETTINGS:-default}; do
          vars=(); [ "$setting" = default ] || IFS=, read -r -a vars <<< "$setting"
          echo "## $name 2^$e $setting" >> "$STATS"
          run "envsweep $name 2^$e $setting $rep" env "${vars[@]}" FIELDFLOW_PIPELINE_STATS=$([ $rep = 1 ] && echo 1 || echo 0) \
              bash -c 'exec "$@" 2>> "$STATS"' envsweep $BENCH --image $B/img/leuvenA.ppm $margs --steps $steps \
              --batch $((1 << e)) --report-every $((steps / 6)) --render-repeats 1
        done
      done
    done
  done
  late_tables
fi
python3 bench/gpu/tables.py "$RESULTS"
