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
Prints one JSON line per mode with us/step, total seconds, PSNR of the full-image render (8-bit
quantised, as saved), and the render time.
"""
import argparse
import json
import math
import time

import cv2
import numpy as np
import torch
import torch.nn.functional as F


class Field(torch.nn.Module):
    def __init__(self, grid_w, grid_h, channels=3, hidden=32, layers=2, octaves=2, subcell=True):
        super().__init__()
        self.octaves, self.subcell = octaves, subcell
        self.register_buffer("grid_size", torch.tensor([float(grid_w), float(grid_h)]))
        self.grid = torch.nn.Parameter(torch.empty(1, channels, grid_h, grid_w).uniform_(-1e-2, 1e-2))
        width_in = channels + (2 if subcell else 0) + 4 * octaves
        dims = [width_in] + [hidden] * layers + [3]
        self.layers = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        for i, layer in enumerate(self.layers):  # the engine's initialisation
            fan_in, fan_out = layer.in_features, layer.out_features
            last = i + 1 == len(self.layers)
            bound = math.sqrt(6 / (fan_in + fan_out)) if last else math.sqrt(6 / fan_in)
            torch.nn.init.uniform_(layer.weight, -bound, bound)
            torch.nn.init.zeros_(layer.bias)

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
    model = Field(max(1, w // 4), max(1, h // 4)).to(dev)
    grid_params = [model.grid]
    mlp_params = [p for n, p in model.named_parameters() if n != "grid"]
    graph = mode == "graph"
    lr = lambda base: torch.tensor(base, device=dev) if graph else base
    opt = torch.optim.Adam([{"params": grid_params, "lr": lr(args.lr_grid)},
                            {"params": mlp_params, "lr": lr(args.lr_mlp)}],
                           betas=(0.9, 0.99), eps=1e-15, fused=True, capturable=graph)
    base_lrs = [args.lr_grid, args.lr_mlp]

    def lr_scale(step):
        start = args.decay_start * args.steps
        if step < start:
            return 1.0
        return args.final_scale ** min(1.0, (step - start) / max(1.0, args.steps - start))

    def set_lr(step):
        for g, base in zip(opt.param_groups, base_lrs):
            if graph:
                g["lr"].fill_(base * lr_scale(step))
            else:
                g["lr"] = base * lr_scale(step)

    def step_fn():
        idx = torch.randint(0, w * h, (args.batch,), device=dev)
        loss = F.mse_loss(model(uv_all[idx]), target[idx])
        opt.zero_grad(set_to_none=False)
        loss.backward()
        opt.step()
        return loss

    if graph:
        # Warm up on a side stream (allocates Adam state), then capture one whole step.
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                step_fn()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            static_loss = step_fn()
        run = lambda: g.replay()
    else:
        run = step_fn

    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for step in range(args.steps):
        set_lr(step)
        run()
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
    return {"peer": f"pytorch-{mode}", "image": args.image, "steps": args.steps, "batch": args.batch,
            "us_per_step": total / args.steps * 1e6, "train_seconds": total,
            "psnr": psnr_8bit(pred, image), "render_us": render_us,
            "device": torch.cuda.get_device_name(0), "torch": torch.__version__}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--image", required=True)
    ap.add_argument("--steps", type=int, default=40000)
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--lr-grid", type=float, default=1e-2)
    ap.add_argument("--lr-mlp", type=float, default=1e-2)
    ap.add_argument("--decay-start", type=float, default=0.5)
    ap.add_argument("--final-scale", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--modes", default="graph,eager")
    ap.add_argument("--eager-steps", type=int, default=0,
                    help="steps for eager mode (default: same as --steps); its us/step is reported")
    args = ap.parse_args()
    bgr = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if bgr is None:
        raise SystemExit(f"{args.image}: cannot read image")
    image = np.ascontiguousarray(bgr[:, :, ::-1], dtype=np.float32) / 255.0
    for mode in args.modes.split(","):
        run_args = argparse.Namespace(**vars(args))
        if mode == "eager" and args.eager_steps:
            run_args.steps = args.eager_steps
        print(json.dumps(train(mode, image, run_args)), flush=True)


if __name__ == "__main__":
    main()
