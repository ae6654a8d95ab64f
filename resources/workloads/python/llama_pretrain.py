#!/usr/bin/env python3
"""LLaMA-3-8B-shaped causal-LM pre-training throughput with transformers' Llama classes (random init, random tokens).

Shape of LLaMA 3 8B: hidden 4096, 32 heads with 8 key/value heads, MLP 14336, vocabulary 128256, RoPE theta
500000; ``--layers`` sets how many of the 32 decoder layers to build so the model fits the GPU(s). bf16 weights
and optimizer state by default (like LitGPT's bf16-true; ``--precision bf16-mixed`` keeps fp32 master weights),
AdamW, gradient clipping at 1.0, sequence length 512, micro-batch ``--batch-size`` per GPU and
``--grad-accum`` micro-batches per optimizer step (the paper: 4 GPUs x 4 x 4 = global batch 64).
Multi-GPU under torchrun with FSDP (full sharding, one unit per decoder layer). Units: tokens (all GPUs).

    torchrun --standalone --nproc-per-node=4 llama_pretrain.py --batch-size 4 --grad-accum 4
    python3 llama_pretrain.py --layers 16 --batch-size 4
    python3 llama_pretrain.py --device cpu --tiny --steps 3
"""

import argparse
import contextlib
import functools

import torch

from caplab_bench import BaseTrainer, add_common_args, autocast, main_for
from caplab_protocol import ConfigError


def llama_config(args):
    from transformers import LlamaConfig

    if args.tiny:
        shape = dict(vocab_size=512, hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=min(args.layers, 2))
    else:
        shape = dict(vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_attention_heads=32, num_key_value_heads=8, num_hidden_layers=args.layers)
    cfg = LlamaConfig(max_position_embeddings=8192, rope_theta=500000.0, rms_norm_eps=1e-5, tie_word_embeddings=False, use_cache=False, **shape)
    try:
        cfg._attn_implementation = "sdpa"
    except (AttributeError, ValueError):
        pass
    return cfg


@contextlib.contextmanager
def default_dtype(dtype):
    prev = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(prev)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--layers", type=int, default=32, help="decoder layers (LLaMA 3 8B has 32)")
    p.add_argument("--seq-len", type=int, default=512)
    p.add_argument("--grad-accum", type=int, default=1, help="micro-batches per optimizer step")
    p.add_argument("--precision", choices=["bf16", "bf16-mixed"], default="bf16")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--activation-checkpointing", action="store_true")
    p.add_argument("--no-fsdp", action="store_true", help="multi-GPU with DistributedDataParallel instead of FSDP")
    add_common_args(p, default_batch=4)
    args = p.parse_args(argv)
    if not 1 <= args.layers <= 256:
        raise ConfigError("--layers must be between 1 and 256")
    if args.seq_len < 2 or args.grad_accum < 1:
        raise ConfigError("--seq-len must be at least 2 and --grad-accum at least 1")
    if args.tiny:
        args.seq_len = min(args.seq_len, 32)
    return args


class Trainer(BaseTrainer):
    def __init__(self, args, dist):
        from transformers import LlamaForCausalLM

        super().__init__(args, dist)
        self.cfg = llama_config(args)
        dtype = torch.bfloat16 if args.precision == "bf16" else torch.float32
        with torch.device(dist.device), default_dtype(dtype):
            model = LlamaForCausalLM(self.cfg)
        self.params = sum(p.numel() for p in model.parameters())
        if args.activation_checkpointing:
            model.gradient_checkpointing_enable()
        model.train()
        self.fsdp = False
        if dist.world > 1 and not args.no_fsdp:
            if dist.device.type != "cuda":
                raise ConfigError("FSDP needs GPUs; use --no-fsdp for a multi-process CPU check")
            from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
            from torch.distributed.fsdp import ShardingStrategy
            from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
            from transformers.models.llama.modeling_llama import LlamaDecoderLayer

            policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={LlamaDecoderLayer})
            model = FSDP(model, auto_wrap_policy=policy, sharding_strategy=ShardingStrategy.FULL_SHARD, device_id=dist.device, use_orig_params=True, limit_all_gathers=True)
            self.fsdp = True
        elif dist.world > 1:
            model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dist.local_rank] if dist.device.type == "cuda" else None)
        self.model = model
        self.opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.1)
        self.data(args.batch_size)

    def data(self, batch_size):
        self.tokens = torch.randint(0, self.cfg.vocab_size, (batch_size, self.args.seq_len), device=self.dist.device)

    def step(self):
        a = self.args
        ctx = autocast(self.dist.device, "bf16") if a.precision == "bf16-mixed" else contextlib.nullcontext()
        for _ in range(a.grad_accum):
            with ctx:
                loss = self.model(input_ids=self.tokens, labels=self.tokens).loss
            (loss / a.grad_accum).backward()
        if self.fsdp:
            self.model.clip_grad_norm_(1.0)
        else:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.opt.step()
        self.opt.zero_grad(set_to_none=True)

    def drop_data(self):
        self.tokens = None

    def begin(self, proto):
        args, dist = self.args, self.dist
        tokens = args.batch_size * args.seq_len * args.grad_accum * dist.world
        proto.start("llama_pretrain", "tokens", gpus=dist.world, batch_size=args.batch_size)
        proto.metric("parameters", self.params)
        if dist.main:
            print(
                "llama_pretrain: %.2f B parameters (%d layers), seq %d, micro-batch %d x %d accum x %d GPU(s) = %d tokens/step, %s%s, %s"
                % (self.params / 1e9, self.cfg.num_hidden_layers, args.seq_len, args.batch_size, args.grad_accum, dist.world, tokens, args.precision, ", FSDP" if self.fsdp else "", dist.device),
                flush=True,
            )
        return tokens


if __name__ == "__main__":
    main_for(Trainer, parse_args)
