#!/usr/bin/env python3
"""Stable-Diffusion-v2-shaped latent-diffusion UNet training throughput, in plain PyTorch (no diffusers).

The UNet has the SD 2.x shape (about 865 M parameters): 4 latent channels, base width 320, channel multipliers
1,2,4,4, two residual blocks per level, linear-projection transformers with 64-channel heads at the three
highest resolutions, cross-attention to a 1024-wide text context of 77 tokens. Each step trains on random
64x64x4 latents (a 512 px image) and a random context with the v-parameterisation loss under a scaled-linear
1000-step noise schedule; fp16 autocast with a gradient scaler by default (bf16 and fp32 selectable), AdamW
lr 1e-4. The VAE and text encoder are not run: only the UNet step is measured. Units: images.

    python3 sd_unet.py --batch-size 32
    python3 sd_unet.py --device cpu --tiny --steps 3
"""

import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from caplab_bench import BaseTrainer, add_common_args, autocast, main_for
from caplab_protocol import ConfigError


def norm(ch):
    return nn.GroupNorm(min(32, ch), ch, eps=1e-6)


def timestep_embedding(t, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32, device=t.device) / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, ch_in, emb_ch, ch_out):
        super().__init__()
        self.in_layers = nn.Sequential(norm(ch_in), nn.SiLU(), nn.Conv2d(ch_in, ch_out, 3, padding=1))
        self.emb_layers = nn.Sequential(nn.SiLU(), nn.Linear(emb_ch, ch_out))
        self.out_layers = nn.Sequential(norm(ch_out), nn.SiLU(), nn.Conv2d(ch_out, ch_out, 3, padding=1))
        self.skip = nn.Identity() if ch_in == ch_out else nn.Conv2d(ch_in, ch_out, 1)

    def forward(self, x, emb, context=None):
        h = self.in_layers(x)
        h = h + self.emb_layers(emb)[:, :, None, None]
        return self.skip(x) + self.out_layers(h)


class Attention(nn.Module):
    def __init__(self, dim, heads, head_dim, context_dim=None):
        super().__init__()
        inner = heads * head_dim
        self.heads = heads
        self.to_q = nn.Linear(dim, inner, bias=False)
        self.to_k = nn.Linear(context_dim or dim, inner, bias=False)
        self.to_v = nn.Linear(context_dim or dim, inner, bias=False)
        self.to_out = nn.Linear(inner, dim)

    def forward(self, x, context=None):
        ctx = x if context is None else context
        b = x.shape[0]
        q, k, v = self.to_q(x), self.to_k(ctx), self.to_v(ctx)
        q, k, v = (z.view(b, -1, self.heads, z.shape[-1] // self.heads).transpose(1, 2) for z in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v)
        return self.to_out(out.transpose(1, 2).reshape(b, -1, q.shape[1] * q.shape[3]))


class GEGLU(nn.Module):
    def __init__(self, dim, mult=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim * mult * 2)
        self.out = nn.Linear(dim * mult, dim)

    def forward(self, x):
        h, gate = self.proj(x).chunk(2, dim=-1)
        return self.out(h * F.gelu(gate))


class SpatialTransformer(nn.Module):
    """GroupNorm, linear projection in, one self+cross-attention transformer block, linear projection out."""

    def __init__(self, ch, head_dim, context_dim):
        super().__init__()
        heads = max(1, ch // head_dim)
        self.norm = norm(ch)
        self.proj_in = nn.Linear(ch, ch)
        self.norm1, self.attn1 = nn.LayerNorm(ch), Attention(ch, heads, head_dim)
        self.norm2, self.attn2 = nn.LayerNorm(ch), Attention(ch, heads, head_dim, context_dim)
        self.norm3, self.ff = nn.LayerNorm(ch), GEGLU(ch)
        self.proj_out = nn.Linear(ch, ch)

    def forward(self, x, emb=None, context=None):
        b, c, h, w = x.shape
        y = self.proj_in(self.norm(x).flatten(2).transpose(1, 2))
        y = y + self.attn1(self.norm1(y))
        y = y + self.attn2(self.norm2(y), context)
        y = y + self.ff(self.norm3(y))
        return x + self.proj_out(y).transpose(1, 2).reshape(b, c, h, w)


class Downsample(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.op = nn.Conv2d(ch, ch, 3, stride=2, padding=1)

    def forward(self, x, emb=None, context=None):
        return self.op(x)


class Upsample(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x, emb=None, context=None):
        return self.conv(F.interpolate(x, scale_factor=2, mode="nearest"))


class ConvIn(nn.Module):
    def __init__(self, ch_in, ch_out):
        super().__init__()
        self.conv = nn.Conv2d(ch_in, ch_out, 3, padding=1)

    def forward(self, x, emb=None, context=None):
        return self.conv(x)


class Block(nn.ModuleList):
    def forward(self, x, emb, context):
        for layer in self:
            x = layer(x, emb, context)
        return x


class UNet(nn.Module):
    def __init__(self, in_ch=4, base=320, mult=(1, 2, 4, 4), res_blocks=2, attn_levels=(0, 1, 2), head_dim=64, context_dim=1024):
        super().__init__()
        emb_ch = base * 4
        self.base = base
        self.time_embed = nn.Sequential(nn.Linear(base, emb_ch), nn.SiLU(), nn.Linear(emb_ch, emb_ch))
        self.input_blocks = nn.ModuleList([Block([ConvIn(in_ch, base)])])
        chans = [base]
        ch = base
        for level, m in enumerate(mult):
            for _ in range(res_blocks):
                layers = [ResBlock(ch, emb_ch, base * m)]
                ch = base * m
                if level in attn_levels:
                    layers.append(SpatialTransformer(ch, head_dim, context_dim))
                self.input_blocks.append(Block(layers))
                chans.append(ch)
            if level != len(mult) - 1:
                self.input_blocks.append(Block([Downsample(ch)]))
                chans.append(ch)
        self.middle = Block([ResBlock(ch, emb_ch, ch), SpatialTransformer(ch, head_dim, context_dim), ResBlock(ch, emb_ch, ch)])
        self.output_blocks = nn.ModuleList()
        for level, m in reversed(list(enumerate(mult))):
            for i in range(res_blocks + 1):
                layers = [ResBlock(ch + chans.pop(), emb_ch, base * m)]
                ch = base * m
                if level in attn_levels:
                    layers.append(SpatialTransformer(ch, head_dim, context_dim))
                if level and i == res_blocks:
                    layers.append(Upsample(ch))
                self.output_blocks.append(Block(layers))
        self.out = nn.Sequential(norm(ch), nn.SiLU(), nn.Conv2d(ch, in_ch, 3, padding=1))

    def forward(self, x, t, context):
        emb = self.time_embed(timestep_embedding(t, self.base))
        skips = []
        h = x
        for block in self.input_blocks:
            h = block(h, emb, context)
            skips.append(h)
        h = self.middle(h, emb, context)
        for block in self.output_blocks:
            h = block(torch.cat([h, skips.pop()], dim=1), emb, context)
        return self.out(h)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--precision", choices=["fp16", "bf16", "fp32", "tf32"], default="fp16")
    p.add_argument("--latent-size", type=int, default=64, help="latent height/width (64 = 512 px images)")
    p.add_argument("--context-len", type=int, default=77)
    p.add_argument("--lr", type=float, default=1e-4)
    add_common_args(p, default_batch=16)
    args = p.parse_args(argv)
    if args.latent_size % 8:
        raise ConfigError("--latent-size must be a multiple of 8 (three downsamplings)")
    return args


class Trainer(BaseTrainer):
    def __init__(self, args, dist):
        super().__init__(args, dist)
        if args.tiny:
            args.latent_size = min(args.latent_size, 8)
            args.context_len = min(args.context_len, 4)
            self.context_dim = 32
            model = UNet(base=32, mult=(1, 2), res_blocks=1, attn_levels=(0, 1), head_dim=16, context_dim=32)
        else:
            self.context_dim = 1024
            model = UNet()
        model = model.to(dist.device)
        if dist.world > 1:
            model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dist.local_rank] if dist.device.type == "cuda" else None)
        self.model = model
        self.params = sum(p.numel() for p in model.parameters())
        self.opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
        self.scaler = torch.amp.GradScaler(dist.device.type, enabled=args.precision == "fp16" and dist.device.type == "cuda")
        betas = torch.linspace(0.00085 ** 0.5, 0.012 ** 0.5, 1000, dtype=torch.float64) ** 2
        self.alphas_cumprod = torch.cumprod(1 - betas, 0).float().to(dist.device)
        self.data(args.batch_size)

    def data(self, batch_size):
        a, d = self.args, self.dist.device
        self.x0 = torch.randn(batch_size, 4, a.latent_size, a.latent_size, device=d)
        self.context = torch.randn(batch_size, a.context_len, self.context_dim, device=d)

    def step(self):
        b = self.x0.shape[0]
        d = self.dist.device
        t = torch.randint(0, 1000, (b,), device=d)
        noise = torch.randn_like(self.x0)
        ac = self.alphas_cumprod[t].view(b, 1, 1, 1)
        x_t = ac.sqrt() * self.x0 + (1 - ac).sqrt() * noise
        v = ac.sqrt() * noise - (1 - ac).sqrt() * self.x0
        self.opt.zero_grad(set_to_none=True)
        with autocast(d, self.args.precision):
            pred = self.model(x_t, t, self.context)
        loss = F.mse_loss(pred.float(), v)
        self.scaler.scale(loss).backward()
        self.scaler.step(self.opt)
        self.scaler.update()

    def drop_data(self):
        self.x0 = self.context = None

    def begin(self, proto):
        args, dist = self.args, self.dist
        proto.start("sd_unet", "images", gpus=dist.world, batch_size=args.batch_size)
        proto.metric("parameters", self.params)
        print("sd_unet: %.0f M parameters, latents %dx%dx4, batch %d per GPU x %d GPU(s), %s, %s" % (self.params / 1e6, args.latent_size, args.latent_size, args.batch_size, dist.world, args.precision, dist.device), flush=True)
        return args.batch_size * dist.world


if __name__ == "__main__":
    main_for(Trainer, parse_args)
