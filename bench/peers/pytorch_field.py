#!/usr/bin/env python3
"""The fieldflow model written the way a PyTorch user would: the peer our engine is measured against.

Same model as kernels/ (docs/engine.md): a cell-centred feature grid (image / 4, 3 channels, border
clamped) sampled bilinearly, sub-cell terms sin(pi f), global Fourier features (2 octaves, sin/cos per
axis), MLP 13 -> 32 -> 32 -> 3 (ReLU, ReLU, sigmoid), MSE on 16,384 random pixels per step, Adam
(betas 0.9/0.99, eps 1e-15) with the engine's schedule (hold, then exponential decay to 0.1x over the
second half). Two ways to run a step:
  eager : plain PyTorch, one Python step at a time;
  graph : the whole step (sampling, forward, backward, fused Adam) captured once in a CUDA graph and
          replayed, which is the fastest PyTorch gets without writing kernels.
`--encoding hash_grid` trains the engine's hash_grid model instead (class HashField, Instant-NGP's
multiresolution hash encoding in 2D).
Prints one JSON line per mode with us/step, total seconds, PSNR of the full-image render (8-bit
quantised, as saved), and the render time.

To compare the two implementations step by step, `--init PREFIX` starts from the engine's initial
weights (either model) and `--sampler pcg` draws the engine's samples (its stratified order and
counter-based hash, sampling.glsl and rng.glsl), both from the files `ff-engine-bench --save-init PREFIX` writes (with `--seeds`, '{seed}'
in PREFIX stands for each run's seed): the two then differ only in their arithmetic, and a
comparison over seeds is paired. `--trace-steps K` prints the loss of each of the first K steps and
`--report-every N` every N steps after that.
"""
import argparse
import json
import math
import time

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from engine_sampler import MASK32, hash_cells_across, sample_block_shift, sample_stratum, training_pixels


class Field(torch.nn.Module):
    def __init__(self, grid_w, grid_h, channels=3, hidden=32, layers=2, octaves=2, subcell=True,
                 hidden_bias=0.0):
        super().__init__()
        self.octaves, self.subcell = octaves, subcell
        self.register_buffer("grid_size", torch.tensor([float(grid_w), float(grid_h)]))
        self.grid = torch.nn.Parameter(torch.empty(1, channels, grid_h, grid_w).uniform_(-1e-2, 1e-2))
        width_in = channels + (2 if subcell else 0) + 4 * octaves
        dims = [width_in] + [hidden] * layers + [3]
        self.layers = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        init_like_engine(self.layers, hidden_bias)

    def encode(self, uv):  # uv: [N, 2] in [0, 1]
        # grid_sample with align_corners=False and border padding is exactly the cell-centred,
        # clamped bilinear lookup of the engine.
        g = F.grid_sample(self.grid, (uv * 2 - 1).view(1, -1, 1, 2), mode="bilinear",
                          padding_mode="border", align_corners=False)
        terms = [g.view(self.grid.shape[1], -1).t()]
        if self.subcell:
            p = uv * self.grid_size - 0.5
            terms.append(torch.sin(math.pi * (p - torch.floor(p))))
        for o in range(self.octaves):
            w = 2 * math.pi * (2 ** o) * uv
            terms += [torch.sin(w[:, :1]), torch.cos(w[:, :1]), torch.sin(w[:, 1:]), torch.cos(w[:, 1:])]
        return torch.cat(terms, dim=1)

    def forward(self, uv):
        x = self.encode(uv)
        for layer in self.layers[:-1]:
            x = torch.relu(layer(x))
        return torch.sigmoid(self.layers[-1](x))


class HashField(torch.nn.Module):
    """The engine's hash_grid model (kernels/src/encodings/hash_grid.cpp): `levels` grids of
    resolution floor(base * scale^l), vertices at uv * res (cells clamped to res - 1), indexed densely
    while (res+1)^2 <= T and otherwise by (x ^ y * 2654435761) mod T, sampled bilinearly, the levels'
    features concatenated into the MLP (ReLU hidden layers)."""

    def __init__(self, levels=16, features=2, log2_table=12, base=16, scale=1.3, hidden=32, layers=2,
                 output="sigmoid", hidden_bias=0.0):
        super().__init__()
        table = 1 << log2_table
        res, dense, offset, rows = [], [], [], 0
        for level in range(levels):
            r = int(math.floor(base * scale ** level))
            fits = (r + 1) ** 2 <= table
            res.append(r)
            dense.append(fits)
            offset.append(rows)
            rows += (r + 1) ** 2 if fits else table
        self.register_buffer("res", torch.tensor(res, dtype=torch.int64))
        self.register_buffer("dense", torch.tensor(dense))
        self.register_buffer("offset", torch.tensor(offset, dtype=torch.int64))
        self.mask, self.output = table - 1, output
        self.table = torch.nn.Parameter(torch.empty(rows, features).uniform_(-1e-4, 1e-4))
        dims = [levels * features] + [hidden] * layers + [3]
        self.layers = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        init_like_engine(self.layers, hidden_bias)

    def encode(self, uv):  # uv: [N, 2] in [0, 1] -> [N, levels * features]
        res = self.res.to(uv.dtype)
        pos = uv[:, None, :] * res[None, :, None]                                    # [N, L, 2]
        cell = torch.minimum(torch.floor(pos), (res - 1)[None, :, None]).clamp_min(0)
        f = pos - cell
        c = cell.to(torch.int64)
        x = torch.stack([c[..., 0], c[..., 0] + 1, c[..., 0], c[..., 0] + 1], dim=-1)  # [N, L, 4]
        y = torch.stack([c[..., 1], c[..., 1], c[..., 1] + 1, c[..., 1] + 1], dim=-1)
        hashed = (x ^ ((y * 2654435761) & MASK32)) & self.mask
        direct = y * (self.res + 1)[None, :, None] + x
        rows = torch.where(self.dense[None, :, None], direct, hashed) + self.offset[None, :, None]
        fx, fy = f[..., 0], f[..., 1]
        w = torch.stack([(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy], dim=-1)
        values = self.table[rows]                                                    # [N, L, 4, F]
        return (values * w[..., None]).sum(dim=2).flatten(1)

    def forward(self, uv):
        x = self.encode(uv)
        for layer in self.layers[:-1]:
            x = torch.relu(layer(x))
        x = self.layers[-1](x)
        return torch.sigmoid(x) if self.output == "sigmoid" else x


def init_like_engine(layers, hidden_bias):
    for i, layer in enumerate(layers):
        fan_in, fan_out = layer.in_features, layer.out_features
        last = i + 1 == len(layers)
        bound = math.sqrt(6 / (fan_in + fan_out)) if last else math.sqrt(6 / fan_in)
        torch.nn.init.uniform_(layer.weight, -bound, bound)
        torch.nn.init.constant_(layer.bias, 0.0 if last else hidden_bias)


def cells_across(model):
    """The encoding's cells across the image (the engine's cells_across): the dense grid's width,
    the hash grid's levels' geometric-mean resolution."""
    if isinstance(model, HashField):
        return hash_cells_across(model.res.tolist())
    return int(model.grid_size[0].item())


class PcgSampler:
    """The engine's sampler (engine_sampler.py): sample i at step s of `batch` over `count` pixels."""

    def __init__(self, seed, batch, count, block_shift, device):
        self.ids = torch.arange(batch, device=device, dtype=torch.int64)
        self.stratum = sample_stratum(self.ids, batch, block_shift)
        self.step = torch.zeros((), device=device, dtype=torch.int64)  # set before each step
        self.seed, self.count, self.batch = seed, count, batch

    def __call__(self):
        return training_pixels(self.seed, self.step.expand_as(self.ids), self.ids, self.stratum,
                               self.batch, self.count)


def load_engine_init(model, prefix):
    """Copies the engine's initial weights (PREFIX.init.f32: the encoding's parameters, cell by cell
    (the grid's cells x channels, or the hash table's rows x features), then the MLP, each matrix
    [out_pad][in_pad] weights then [out_pad] biases) into the model."""
    flat = torch.from_numpy(np.fromfile(prefix + ".init.f32", dtype=np.float32))
    with torch.no_grad():
        if isinstance(model, HashField):
            n = model.table.numel()
            model.table.copy_(flat[:n].view_as(model.table))
        else:
            c, gh, gw = model.grid.shape[1:]
            n = gh * gw * c
            model.grid.copy_(flat[:n].view(gh, gw, c).permute(2, 0, 1).unsqueeze(0))
        off = n
        for i, layer in enumerate(model.layers):
            out_f, in_f = layer.weight.shape
            in_pad = -(-in_f // 16) * 16 if i == 0 else in_f  # the engine pads the encoded inputs to 16s
            last = i + 1 == len(model.layers)
            out_pad = 16 if last else out_f
            w = flat[off:off + out_pad * in_pad].view(out_pad, in_pad)
            off += out_pad * in_pad
            layer.weight.copy_(w[:out_f, :in_f])
            layer.bias.copy_(flat[off:off + out_f])
            off += out_pad
        if off != flat.numel():
            raise SystemExit(f"{prefix}.init.f32: {flat.numel()} floats, the model needs {off}")


def pixel_centres(w, h, device):
    ys, xs = torch.meshgrid(torch.arange(h, device=device), torch.arange(w, device=device), indexing="ij")
    return torch.stack([(xs.flatten() + 0.5) / w, (ys.flatten() + 0.5) / h], dim=1)


def psnr_8bit(pred, target):
    a = np.clip(np.rint(pred * 255), 0, 255).astype(np.float64)
    b = np.clip(np.rint(target * 255), 0, 255).astype(np.float64)
    mse = np.mean((a - b) ** 2)
    return float("inf") if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def train(mode, image, args):
    dev = torch.device("cuda")
    torch.manual_seed(args.seed)
    h, w, _ = image.shape
    target = torch.from_numpy(image).to(dev).view(-1, 3)
    uv_all = pixel_centres(w, h, dev)
    if args.encoding == "hash_grid":
        model = HashField(args.hash_levels, args.hash_features, args.hash_log2_table, args.hash_base,
                          args.hash_scale, args.hidden, args.layers, args.output,
                          args.hidden_bias).to(dev)
    else:
        model = Field(max(1, w // 4), max(1, h // 4), hidden=args.hidden, layers=args.layers,
                      hidden_bias=args.hidden_bias).to(dev)
    if args.init:
        load_engine_init(model, args.init)
    sampler = None
    if args.sampler == "pcg":
        shift = sample_block_shift(args.batch, w, h, cells_across(model))
        sampler = PcgSampler(args.seed, args.batch, w * h, shift, dev)
        if args.init:  # the same indices as the engine's, or stop
            want = torch.from_numpy(np.fromfile(args.init + ".idx.u32", dtype=np.uint32).astype(np.int64))
            for step in range(2):
                sampler.step.fill_(step)
                got = sampler().cpu()
                if not torch.equal(got, want[step * args.batch:(step + 1) * args.batch]):
                    raise SystemExit(f"pcg sampler differs from the engine's at step {step}")
    encoding_name = "table" if args.encoding == "hash_grid" else "grid"
    grid_params = [getattr(model, encoding_name)]
    mlp_params = [p for n, p in model.named_parameters() if n != encoding_name]
    graph = mode == "graph"
    lr = lambda base: torch.tensor(base, device=dev) if graph else base
    opt = torch.optim.Adam([{"params": grid_params, "lr": lr(args.lr_grid)},
                            {"params": mlp_params, "lr": lr(args.lr_mlp)}],
                           betas=(0.9, 0.99), eps=1e-15, fused=True, capturable=graph)
    base_lrs = [args.lr_grid, args.lr_mlp]

    def lr_scale(step):
        warmup = args.warmup * args.steps
        ramp = (step + 1) / warmup if step + 1 < warmup else 1.0
        start = args.decay_start * args.steps
        if step <= start:
            return ramp
        return ramp * args.final_scale ** min(1.0, (step - start) / max(1.0, args.steps - start))

    def set_lr(step):
        for g, base in zip(opt.param_groups, base_lrs):
            if graph:
                g["lr"].fill_(base * lr_scale(step))
            else:
                g["lr"] = base * lr_scale(step)

    def step_fn():
        idx = sampler() if sampler is not None else torch.randint(0, w * h, (args.batch,), device=dev)
        loss = F.mse_loss(model(uv_all[idx]), target[idx])
        opt.zero_grad(set_to_none=False)
        loss.backward()
        opt.step()
        return loss

    if graph:
        # Warm up on a side stream (allocates Adam state), then capture one whole step; the warm-up
        # steps are undone so that training starts from the initial weights with fresh Adam state.
        initial = {k: v.clone() for k, v in model.state_dict().items()}
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                step_fn()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            static_loss = step_fn()
        with torch.no_grad():
            for k, v in model.state_dict().items():
                v.copy_(initial[k])
            for state in opt.state.values():
                for t in state.values():
                    if torch.is_tensor(t):
                        t.zero_()
        run = lambda: g.replay()
    else:
        run = step_fn

    torch.cuda.synchronize()
    t0 = time.perf_counter()
    trace = []
    for step in range(args.steps):
        set_lr(step)
        if sampler is not None:
            sampler.step.fill_(step)
        loss = run()
        done = step + 1
        if done <= args.trace_steps or (args.report_every and done % args.report_every == 0):
            trace.append((done, float((static_loss if graph else loss).item())))
    torch.cuda.synchronize()
    total = time.perf_counter() - t0

    with torch.no_grad():
        model(uv_all)  # warm
        torch.cuda.synchronize()
        r0 = time.perf_counter()
        for _ in range(10):
            pred = model(uv_all)
        torch.cuda.synchronize()
        render_us = (time.perf_counter() - r0) / 10 * 1e6
    pred = pred.view(h, w, 3).float().cpu().numpy()
    return {"peer": f"pytorch-{mode}", "image": args.image, "encoding": args.encoding,
            "hidden": args.hidden, "parameters": sum(p.numel() for p in model.parameters()), "steps": args.steps, "batch": args.batch,
            "us_per_step": total / args.steps * 1e6, "train_seconds": total,
            "psnr": psnr_8bit(pred, image), "render_us": render_us,
            "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
            "seed": args.seed, "sampler": args.sampler, "init": args.init or "torch",
            "loss_trace": trace}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--image", required=True)
    ap.add_argument("--steps", type=int, default=40000)
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--lr-grid", type=float, default=1e-2)
    ap.add_argument("--lr-mlp", type=float, default=1e-2)
    ap.add_argument("--warmup", type=float, default=0.0,
                    help="fraction of the steps over which both rates ramp up (the engine's default: 0.0125)")
    ap.add_argument("--hidden-bias", type=float, default=0.0,
                    help="initial bias of the hidden ReLU layers (the engine's: 0.1)")
    ap.add_argument("--decay-start", type=float, default=0.5)
    ap.add_argument("--final-scale", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", default="",
                    help="several seeds in one process, one result line each: '1-20' or '1,4,9' "
                         "(replaces --seed; saves the interpreter's and CUDA's start per seed)")
    ap.add_argument("--encoding", choices=["dense_grid", "hash_grid"], default="dense_grid")
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--output", choices=["sigmoid", "linear"], default="sigmoid",
                    help="output activation of the hash_grid model (the dense model's is sigmoid)")
    ap.add_argument("--hash-levels", type=int, default=16)
    ap.add_argument("--hash-features", type=int, default=2)
    ap.add_argument("--hash-log2-table", type=int, default=12)
    ap.add_argument("--hash-base", type=int, default=16)
    ap.add_argument("--hash-scale", type=float, default=1.3)
    ap.add_argument("--modes", default="graph,eager")
    ap.add_argument("--init", default="",
                    help="start from ff-engine-bench --save-init PREFIX's weights ('{seed}' in PREFIX: the run's seed)")
    ap.add_argument("--sampler", choices=["torch", "pcg"], default="torch")
    ap.add_argument("--trace-steps", type=int, default=0)
    ap.add_argument("--report-every", type=int, default=0)
    ap.add_argument("--eager-steps", type=int, default=0,
                    help="steps for eager mode (default: same as --steps); its us/step is reported")
    args = ap.parse_args()
    bgr = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if bgr is None:
        raise SystemExit(f"{args.image}: cannot read image")
    image = np.ascontiguousarray(bgr[:, :, ::-1], dtype=np.float32) / 255.0
    for seed in parse_seeds(args.seeds) if args.seeds else [args.seed]:
        for mode in args.modes.split(","):
            run_args = argparse.Namespace(**vars(args))
            run_args.seed = seed
            run_args.init = args.init.replace("{seed}", str(seed))
            if mode == "eager" and args.eager_steps:
                run_args.steps = args.eager_steps
            print(json.dumps(train(mode, image, run_args)), flush=True)


def parse_seeds(text):
    """'1-20' or '1,4,9' (or both, '1-5,9') as a list of ints."""
    seeds = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        try:
            seeds += list(range(int(first), int(last or first) + 1))
        except ValueError:
            raise SystemExit(f"--seeds: '{part}' is not a seed or a range like 1-20")
    return seeds


if __name__ == "__main__":
    main()
