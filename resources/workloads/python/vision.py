#!/usr/bin/env python3
"""Image-classification training throughput: torchvision ResNet-50 or ViT-L/16 on random images kept on the GPU.

As in the power-aware benchmarking paper (arXiv 2603.16164): Adam, lr 1e-4, fp32 by default (bf16/fp16 via
autocast as an option), 224 px random images and labels created once on the device, so no I/O is measured.
Prints CapLab's line protocol: one step event per optimizer step with the images of all GPUs.

Multi-GPU: run under torchrun (DistributedDataParallel); --batch-size is per GPU.

    python3 vision.py --model vit_l_16 --batch-size 64            # until killed
    python3 vision.py --model resnet50 --steps 3 --device cpu --tiny
"""

import argparse

import torch
import torch.nn.functional as F
import torchvision

from caplab_bench import BaseTrainer, Dist, add_common_args, autocast, main_for
from caplab_protocol import ConfigError

MODELS = ("resnet50", "vit_l_16", "resnet18", "resnet101", "vit_b_16", "vit_h_14")


def build_model(name, num_classes, image_size, tiny):
    if tiny:
        if name.startswith("vit"):
            from torchvision.models.vision_transformer import VisionTransformer

            return VisionTransformer(image_size=image_size, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64, num_classes=num_classes)
        return torchvision.models.resnet18(num_classes=num_classes)
    kwargs = {"weights": None, "num_classes": num_classes}
    if name.startswith("vit"):
        kwargs["image_size"] = image_size
    return getattr(torchvision.models, name)(**kwargs)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", choices=MODELS, default="vit_l_16")
    p.add_argument("--precision", choices=["fp32", "tf32", "bf16", "fp16"], default="fp32", help="fp32: strict fp32 (the paper's setting); tf32: fp32 with TF32 tensor cores, as NGC containers run fp32; bf16/fp16: autocast")
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--num-classes", type=int, default=1000)
    p.add_argument("--channels-last", action="store_true", help="NHWC memory format (faster convolutions on tensor cores)")
    p.add_argument("--lr", type=float, default=1e-4)
    add_common_args(p, default_batch=64)
    args = p.parse_args(argv)
    if args.tiny:
        args.image_size = min(args.image_size, 32)
        args.num_classes = min(args.num_classes, 10)
    patch = 8 if args.tiny else 14 if args.model == "vit_h_14" else 16
    if args.model.startswith("vit") and args.image_size % patch:
        raise ConfigError("--image-size must be a multiple of the ViT patch size (%d)" % patch)
    return args


class Trainer(BaseTrainer):
    def __init__(self, args, dist: Dist):
        super().__init__(args, dist)
        model = build_model(args.model, args.num_classes, args.image_size, args.tiny).to(dist.device)
        if args.channels_last:
            model = model.to(memory_format=torch.channels_last)
        if dist.world > 1:
            model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dist.local_rank] if dist.device.type == "cuda" else None)
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=args.lr)
        self.scaler = torch.amp.GradScaler(dist.device.type, enabled=args.precision == "fp16" and dist.device.type == "cuda")
        self.data(args.batch_size)

    def data(self, batch_size):
        a, d = self.args, self.dist.device
        self.x = torch.randn(batch_size, 3, a.image_size, a.image_size, device=d)
        if a.channels_last:
            self.x = self.x.contiguous(memory_format=torch.channels_last)
        self.y = torch.randint(0, a.num_classes, (batch_size,), device=d)

    def step(self):
        self.opt.zero_grad(set_to_none=True)
        with autocast(self.dist.device, self.args.precision):
            loss = F.cross_entropy(self.model(self.x), self.y)
        self.scaler.scale(loss).backward()
        self.scaler.step(self.opt)
        self.scaler.update()

    def drop_data(self):
        self.x = self.y = None

    def begin(self, proto):
        args, dist = self.args, self.dist
        proto.start(args.model, "images", gpus=dist.world, batch_size=args.batch_size)
        print("vision: %s, batch %d per GPU x %d GPU(s), %s, %d px, %s" % (args.model, args.batch_size, dist.world, args.precision, args.image_size, dist.device), flush=True)
        return args.batch_size * dist.world


if __name__ == "__main__":
    main_for(Trainer, parse_args)
