# Sourced by bad_inputs.sh (its run_case, snapshot and variables): the user's files are safe.
# Nothing the tool did not write is deleted or replaced, whatever its name and wherever it lies.
# `bad_inputs.sh ... ONLY=user_files` runs just these cases.

# --- issue 62: the user's files are safe ------------------------------------------------------
# 3. Train's snapshot folder: a file of the user's with a snapshot's name stays (the run writes
#    other steps); one with the name of a snapshot the run writes stops the results from moving
#    into place (the model's folder included: all or nothing), and another node writing into that
#    folder is refused at check time.
mkdir -p out/snap_user && echo "my picture" >out/snap_user/prediction_at_7.png
post='[ "$(cat out/snap_user/prediction_at_7.png)" = "my picture" ] && [ -s out/snap_user/prediction_at_10.png ]'
run_case snapshot_keeps_users_file 0 "ok" \
    -- run $train --set input=inputs/gray8.png --set output=out/snap_user_model --set snapshots=out/snap_user
mkdir -p out/snap_clash && echo "my picture" >out/snap_clash/prediction_at_10.png
post='[ "$(cat out/snap_clash/prediction_at_10.png)" = "my picture" ] && [ ! -e out/snap_clash_model/model.ffm ]'
run_case snapshot_name_taken 1 "error: ${q}out/snap_clash/prediction_at_10.png${q} was not written by fieldflow run \(or was changed since\), and this run wrote a file of that name; nothing was moved into place: the results wait in ${q}out/snap_clash/\.fieldflow-partial${q}: move that file away and run the same command again" \
    -- run $train --set input=inputs/gray8.png --set output=out/snap_clash_model --set snapshots=out/snap_clash
# 4. A file of the user's where a run writes is refused before the run starts, left as it is.
mkdir -p out/name_taken && echo "my picture" >out/name_taken/image.png
post='[ "$(cat out/name_taken/image.png)" = "my picture" ]'
run_case output_name_taken 2 "fieldflow run: error: ${q}out/name_taken/image.png${q} was not written by fieldflow run \(or was changed since\), and this run writes there; it is left as it is: move it away, or give the run another output folder" \
    -- run $rw --set input=inputs/gray8.png --set output=out/name_taken
run_case writer_in_snapshot_folder 2 "graphs/train.yaml:[0-9]+:[0-9]+: error: node ${q}save${q}: param ${q}path${q}: ${q}out/in_snaps/model.ffm${q} is inside ${q}out/in_snaps${q}, the folder node ${q}train${q} owns \(param ${q}snapshots${q}, graphs/train.yaml:[0-9]+:[0-9]+\); give each its own path" \
    -- run $train --set input=inputs/gray8.png --set output=out/in_snaps --set snapshots=out/in_snaps
# 4. Two runs into one folder would mix their files: while a training run writes out/two_runs, a
#    second run into it is refused, naming the first, and writes nothing.
"$fieldflow" run $train --set input=inputs/gray8.png --set steps=100000000 --set output=out/two_runs \
    --no-cache >logs/two_runs_first.log 2>&1 &
first=$!
polls=0
until grep -q '^ran  *image ' logs/two_runs_first.log || ! kill -0 "$first" 2>/dev/null || [ $polls -ge 1200 ]; do
    sleep 0.1; polls=$((polls + 1))
done
post='[ ! -e out/two_runs/image.png ]'
run_case second_run_same_folder 2 "fieldflow run: error: another fieldflow run is writing to ${q}out/two_runs${q}; wait for it to end, or give this one another output folder \(pid <pid>: fieldflow run graphs/train.yaml .*\)" \
    -- run $rw --set input=inputs/gray8.png --set output=out/two_runs
kill -TERM "$first" 2>/dev/null; wait "$first"
# 5. Reads that never end: a FIFO or a device where a file is expected is refused before it is
#    opened for reading, at once, whatever reads it (graphs, images, weights, model files, plugins).
mkfifo graphs/fifo.yaml inputs/fifo.png inputs/fifo.json
mkdir -p fifo_plugins && mkfifo fifo_plugins/evil.so
run_case graph_is_fifo 2 "graphs/fifo.yaml:1:1: error: the graph path is a FIFO \(named pipe\), not a file; give a graph file \(.yaml\)" \
    -- run graphs/fifo.yaml
run_case image_is_fifo 2 "graphs/read_write.yaml:[0-9]+:[0-9]+: error: node ${q}image${q}: param ${q}path${q}: ${q}inputs/fifo.png${q} is not a regular file" \
    -- run $rw --set input=inputs/fifo.png --set output=out/image_fifo
run_case weights_are_fifo 1 "error: node ${q}model${q} failed: param ${q}path${q} .*: ${q}inputs/fifo.json${q} is a FIFO \(named pipe\), not a weights file" \
    CACHE= -- render --weights inputs/fifo.json --output-image out/weights_fifo.png
run_case weights_are_device 1 "error: node ${q}model${q} failed: param ${q}path${q} .*: ${q}/dev/zero${q} is a device, not a weights file" \
    CACHE= -- render --weights /dev/zero --output-image out/weights_zero.png
run_case model_is_device 1 "error: node ${q}model${q} failed: param ${q}path${q} .*: ${q}/dev/zero${q} is a device, not a model file" \
    -- run $infer --set model=/dev/zero --set output=out/model_zero
run_case plugin_is_fifo 2 "error: plugin fifo_plugins/evil.so: is a FIFO \(named pipe\), not a plugin file" \
    FIELDFLOW_PLUGIN_PATH=fifo_plugins -- run $rw --set input=inputs/gray8.png --dry-run
truncate -s 20M graphs/huge.yaml
run_case graph_too_large 2 "graphs/huge.yaml:1:1: error: the graph path is 20971520 bytes, more than the 16777216 expected; give a graph file \(.yaml\)" \
    -- run graphs/huge.yaml
# 8. The root-folder and overwrite-your-input guards look at the path, not its spelling: `/.`,
#    `//`, `/tmp/..` and a link to `/` are the root folder (checked with --dry-run: nothing runs).
ln -sfn / root_link
for case in "dot /." "double_slash //" "dotdot /tmp/.." "link root_link"; do
    read -r kind value <<<"$case"
    shown=${value//./\\.}
    run_case "output_root_$kind" 2 "graphs/read_write.yaml:[0-9]+:[0-9]+: error: node ${q}save${q}: param ${q}path${q}: variable ${q}output${q} is ${q}$shown${q}, the root folder, so ${q}\\$\{output\}/\\$\{file\}${q} resolves to ${q}$shown/image\.png${q}; give it a folder \(--set output=DIR\)" \
        -- run $rw --set input=inputs/gray8.png --set output="$value" --dry-run
done
run_case overwrites_input_spelled 2 "graphs/read_write.yaml:[0-9]+:[0-9]+: error: node ${q}save${q}: param ${q}path${q}: writing ${q}inputs/\./gray8.png${q} would overwrite the file node ${q}image${q} reads .*" \
    -- run $rw --set input=inputs/gray8.png --set output=inputs/. --set file=gray8.png --dry-run
# 10. Messages that say what is wrong: the advised escape for a literal '${' works in --set
#     values too; a NUL byte in a graph is named where it is; a non-number count says so.
post='[ -s "out/lit\${x}/image.png" ]'
run_case set_value_escape 0 "ok" -- run $rw --set input=inputs/gray8.png --set 'output=out/lit$${x}'
printf 'fieldflow: 1\nnodes:\n  a: {op: Read\0Image}\n' >graphs/nul_byte.yaml
run_case graph_nul_byte 2 "graphs/nul_byte.yaml:3:15: error: a NUL byte: a graph file is text \(is this a binary file, or was it damaged\?\)" \
    -- run graphs/nul_byte.yaml
run_case jobs_not_a_number 2 "fieldflow run: error: --jobs abc is not a number: give a whole number from 1 to 1024" \
    -- run $rw --set input=inputs/gray8.png --set output=out/jobs_abc --jobs abc
# 9. A batch's images' warnings reach the terminal, not only their logs (a resumed image's
#    "the snapshot at step N ... is no longer there" among them).
mkdir -p exr_photos && cp inputs/rgb32.exr exr_photos/float.exr
run_case batch_warning_shown 0 "float: \[save\] warning: the image came from a 32-bit float file; png stores at most 16 bits per sample, so it is saved at 16 \(use \.exr to keep floats\)" \
    -- batch $rw --input exr_photos --output out/batch_warning
# 6. Degenerate shapes run through the main graph: a 4000x1 photo (10 steps) gets a report, its
#    metrics and an index thumbnail of sane size (each half at most 288x72, aspect kept).
cp "$here/../../graphs/lake.yaml" graphs/lake.yaml
"$tool" large inputs/one_row.png 4000 1 8 >/dev/null
post='[ -s out/one_row/metrics.json ] && [ -s out/one_row/report.html ]'
run_case lake_one_row 0 "out/one_row/thumbnail.png: 576x1, 8-bit, 3 channels" \
    -- run graphs/lake.yaml --set input=inputs/one_row.png --set output=out/one_row --set steps=10 --set cpu_steps=10 \
    -- check out/one_row/thumbnail.png 576 1
#    A 1x4000 photo (one column) runs through it too: its thumbnail is 2x72 (aspect kept, at least
#    a pixel a half). The upscale comparison crops to a multiple of its factor in both directions,
#    which a 4000x1 photo cannot give: refused by its first node at once, saying why and what to do.
"$tool" large inputs/one_column.png 1 4000 8 >/dev/null
post='[ -s out/one_column/metrics.json ] && [ -s out/one_column/report.html ]'
run_case lake_one_column 0 "out/one_column/thumbnail.png: 2x72, 8-bit, 3 channels" \
    -- run graphs/lake.yaml --set input=inputs/one_column.png --set output=out/one_column --set steps=10 --set cpu_steps=10 \
    -- check out/one_column/thumbnail.png 2 72
cp "$here/../../graphs/upscale_methods.yaml" graphs/upscale_methods.yaml
run_case upscale_one_row 1 "error: node ${q}image${q} failed: param ${q}multiple_of${q} \(graphs/upscale_methods.yaml:[0-9]+:[0-9]+\): multiple_of = 4 is larger than the 4000x1 rectangle: each side needs at least 4 pixels \(give a larger image, or a smaller multiple_of\)" \
    -- run graphs/upscale_methods.yaml --set input=inputs/one_row.png --set output=out/upscale_one_row
