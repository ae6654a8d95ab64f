#!/usr/bin/env python3
"""LLaMA inference throughput, offline (batch generation with transformers) or online (an OpenAI-compatible server).

Offline (default): a random-init LLaMA-3-shaped model (8B widths; ``--layers`` of its 32 decoder layers, 16 by
default, about 4.6 B parameters; ``--layers 32`` is the full 8B shape) generates exactly ``--output-len`` tokens
for each of ``--prompts`` random prompts of ``--input-len`` tokens, ``--batch-size`` prompts per generate call,
greedy, bf16. One protocol step per generate call with its generated tokens; the prompts repeat until killed
(or ``--steps``). Units: generated tokens.

Online (``--online``): drives a running vLLM or SGLang server (``--url``, OpenAI-compatible
``/v1/completions`` with streaming) with random token prompts at ``--request-rate`` requests/s (Poisson arrivals;
``inf`` sends as fast as ``--max-concurrency`` allows), using only the standard library. One protocol step per
``--report-interval`` with the output tokens of the requests finished in it, plus metrics ttft_ms, e2e_ms and
requests. Runs until killed, or until ``--num-requests`` requests are done.

    python3 llama_infer.py --prompts 256 --batch-size 64 --input-len 512 --output-len 256
    python3 llama_infer.py --online --url http://127.0.0.1:30000 --model meta-llama/Meta-Llama-3-8B --request-rate inf
    python3 llama_infer.py --device cpu --tiny --steps 2
"""

import argparse
import http.client
import json
import random
import sys
import threading
import time
import urllib.parse

from caplab_protocol import ConfigError, Protocol, guard


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--online", action="store_true", help="drive an OpenAI-compatible server instead of generating here")
    p.add_argument("--prompts", type=int, default=256, help="random prompts (offline: per round; online: distinct prompts cycled)")
    p.add_argument("--input-len", type=int, default=512, help="prompt length in tokens")
    p.add_argument("--output-len", type=int, default=256, help="tokens generated per prompt")
    p.add_argument("--vocab-size", type=int, default=128256, help="token ids are drawn below this")
    # offline
    p.add_argument("--layers", type=int, default=16, help="offline: decoder layers of the LLaMA-3-8B-shaped model (32 = full 8B)")
    p.add_argument("--batch-size", type=int, default=64, help="offline: prompts per generate call")
    p.add_argument("--steps", type=int, default=0, help="offline: generate calls; online: report intervals with completions; 0 = until killed")
    p.add_argument("--warmup-steps", type=int, default=2)
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-stable-batch", action="store_true", help="offline: grow the generate batch until out of memory; report the largest stable size")
    p.add_argument("--max-batch-limit", type=int, default=4096)
    p.add_argument("--probe-only", action="store_true")
    p.add_argument("--simulate-oom-above", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--simulate-oom-at-step", type=int, default=None, help=argparse.SUPPRESS)
    # online
    p.add_argument("--url", default="http://127.0.0.1:30000", help="online: server base URL")
    p.add_argument("--model", default="default", help="online: model name sent in requests")
    p.add_argument("--request-rate", default="inf", help="online: requests per second, or inf")
    p.add_argument("--max-concurrency", type=int, default=256, help="online: requests in flight at most")
    p.add_argument("--num-requests", type=int, default=0, help="online: stop after this many requests (0 = until killed)")
    p.add_argument("--report-interval", type=float, default=1.0, help="online: seconds per protocol step")
    p.add_argument("--timeout", type=float, default=600.0, help="online: seconds per request")
    args = p.parse_args(argv)
    for name in ("prompts", "input_len", "output_len", "batch_size", "max_concurrency"):
        if getattr(args, name) < 1:
            raise ConfigError("--%s must be at least 1" % name.replace("_", "-"))
    try:
        args.rate = float(args.request_rate)
    except ValueError:
        raise ConfigError("--request-rate must be a number or inf") from None
    if not args.rate > 0:
        raise ConfigError("--request-rate must be positive")
    if args.tiny:
        args.input_len, args.output_len, args.vocab_size = min(args.input_len, 16), min(args.output_len, 8), min(args.vocab_size, 512)
        args.prompts, args.batch_size = min(args.prompts, 8), min(args.batch_size, 4)
    return args


# ---------------------------------------------------------------------------------------------------------------
# offline


def offline(args, proto):
    import torch

    from caplab_bench import find_max_stable_batch, run_steps, setup, sync
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    dist = setup(args)
    if dist.world > 1 or (dist.device.type == "cuda" and torch.cuda.device_count() > 1):
        raise ConfigError("offline inference runs on one GPU: give the run one device (tensor parallelism is the serving engines' job: use --online)")
    if args.tiny:
        shape = dict(vocab_size=args.vocab_size, hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=2)
    else:
        shape = dict(vocab_size=args.vocab_size, hidden_size=4096, intermediate_size=14336, num_attention_heads=32, num_key_value_heads=8, num_hidden_layers=args.layers)
    cfg = LlamaConfig(max_position_embeddings=max(8192, args.input_len + args.output_len), rope_theta=500000.0, rms_norm_eps=1e-5, tie_word_embeddings=False, bos_token_id=None, eos_token_id=None, pad_token_id=0, **shape)
    try:
        cfg._attn_implementation = "sdpa"
    except (AttributeError, ValueError):
        pass
    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16 if dist.device.type == "cuda" else torch.float32)
    try:
        with torch.device(dist.device):
            model = LlamaForCausalLM(cfg)
    finally:
        torch.set_default_dtype(prev)
    model.eval()
    params = sum(p.numel() for p in model.parameters())
    gen = GenerationConfig(max_new_tokens=args.output_len, min_new_tokens=args.output_len, do_sample=False, pad_token_id=0, eos_token_id=None, use_cache=True)
    prompts = torch.randint(1, args.vocab_size, (args.prompts, args.input_len), device=dist.device)
    state = {"next": 0}

    def batch_of(size):
        idx = [(state["next"] + i) % args.prompts for i in range(size)]
        state["next"] = (state["next"] + size) % args.prompts
        return prompts[idx]

    def generate(size):
        ids = batch_of(size)
        with torch.inference_mode():
            out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), generation_config=gen)
        made = out.shape[1] - ids.shape[1]
        if made != args.output_len:
            raise RuntimeError("generated %d tokens instead of %d" % (made, args.output_len))

    if args.max_stable_batch:

        def try_batch(size):
            generate(size)
            sync(dist.device)

        args.batch_size = find_max_stable_batch(proto, try_batch, args.batch_size, args.max_batch_limit, args.simulate_oom_above, dist.world)
        if args.probe_only:
            return
    proto.start("llama_infer", "tokens", gpus=1, batch_size=args.batch_size)
    proto.metric("parameters", params)
    print("llama_infer offline: %.2f B parameters, %d prompts x %d in / %d out tokens, %d per generate call, %s" % (params / 1e9, args.prompts, args.input_len, args.output_len, args.batch_size, dist.device), flush=True)
    run_steps(proto, dist, lambda: generate(args.batch_size), args.batch_size * args.output_len, args.steps, args.warmup_steps, args.simulate_oom_at_step)


# ---------------------------------------------------------------------------------------------------------------
# online


class Results:
    def __init__(self):
        self.lock = threading.Lock()
        self.done = []  # (end time, output tokens, ttft s, latency s)
        self.failures = 0
        self.consecutive_failures = 0
        self.last_error = None
        self.started = 0

    def ok(self, rec):
        with self.lock:
            self.done.append(rec)
            self.consecutive_failures = 0

    def fail(self, err):
        with self.lock:
            self.failures += 1
            self.consecutive_failures += 1
            self.last_error = err

    def take(self):
        with self.lock:
            out, self.done = self.done, []
            return out


def one_request(url, args, prompt):
    """One streaming completion. Returns (output tokens, ttft s, latency s)."""
    body = json.dumps(
        {
            "model": args.model,
            "prompt": prompt,
            "max_tokens": args.output_len,
            "min_tokens": args.output_len,
            "ignore_eos": True,
            "temperature": 0.0,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
    ).encode()
    conn_cls = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
    conn = conn_cls(url.hostname, url.port or (443 if url.scheme == "https" else 80), timeout=args.timeout)
    t0 = time.perf_counter()
    ttft = None
    chunks = 0
    usage_tokens = None
    try:
        conn.request("POST", url.path.rstrip("/") + "/v1/completions", body=body, headers={"Content-Type": "application/json", "Accept": "text/event-stream"})
        resp = conn.getresponse()
        if resp.status != 200:
            raise IOError("HTTP %d: %s" % (resp.status, resp.read(300).decode("utf-8", "replace")))
        for raw in resp:
            line = raw.strip()
            if not line.startswith(b"data:"):
                continue
            data = line[5:].strip()
            if data == b"[DONE]":
                break
            msg = json.loads(data)
            if msg.get("usage") and msg["usage"].get("completion_tokens") is not None:
                usage_tokens = msg["usage"]["completion_tokens"]
            for choice in msg.get("choices") or []:
                if choice.get("text"):
                    chunks += 1
                    if ttft is None:
                        ttft = time.perf_counter() - t0
    finally:
        conn.close()
    latency = time.perf_counter() - t0
    return (usage_tokens if usage_tokens is not None else chunks), (ttft if ttft is not None else latency), latency


def online(args, proto):
    url = urllib.parse.urlparse(args.url)
    if url.scheme not in ("http", "https") or not url.hostname:
        raise ConfigError("--url must be http(s)://host[:port], got %r" % args.url)
    rng = random.Random(args.seed)
    prompts = [[rng.randrange(1, args.vocab_size) for _ in range(args.input_len)] for _ in range(args.prompts)]
    results = Results()
    slots = threading.BoundedSemaphore(args.max_concurrency)
    stop = threading.Event()

    def worker(prompt):
        try:
            tokens, ttft, latency = one_request(url, args, prompt)
            results.ok((time.time(), tokens, ttft, latency))
        except Exception as exc:  # noqa: B902 (a failed request is counted, not fatal)
            results.fail("%s: %s" % (type(exc).__name__, exc))
        finally:
            slots.release()

    def sender():
        i = 0
        while not stop.is_set() and (args.num_requests <= 0 or i < args.num_requests):
            if args.rate != float("inf"):
                time.sleep(rng.expovariate(args.rate))
            while not slots.acquire(timeout=0.2):
                if stop.is_set():
                    return
            results.started += 1
            threading.Thread(target=worker, args=(prompts[i % len(prompts)],), daemon=True).start()
            i += 1

    proto.start("llama_infer", "tokens", gpus=1)
    print("llama_infer online: %s, rate %s req/s, %d in / %d out tokens, concurrency <= %d" % (args.url, args.request_rate, args.input_len, args.output_len, args.max_concurrency), flush=True)
    proto.phase("warmup")
    threading.Thread(target=sender, daemon=True).start()
    n = 0
    finished = 0
    total_tokens = 0
    t_start = time.time()
    last = time.perf_counter()
    while args.steps <= 0 or n < args.steps:
        time.sleep(args.report_interval)
        now = time.perf_counter()
        batch = results.take()
        if results.consecutive_failures >= 10 and not finished:
            stop.set()
            raise ConfigError("the server at %s does not answer: %s" % (args.url, results.last_error))
        if batch:
            tokens = sum(r[1] for r in batch)
            n += 1
            finished += len(batch)
            total_tokens += tokens
            proto.step(n, tokens, now - last)
            proto.metric("requests", len(batch))
            proto.metric("ttft_ms", 1000 * sum(r[2] for r in batch) / len(batch))
            proto.metric("e2e_ms", 1000 * sum(r[3] for r in batch) / len(batch))
            if n == args.warmup_steps:
                proto.phase("measure")
            last = now
        if args.num_requests > 0 and finished + results.failures >= args.num_requests:
            break
    stop.set()
    proto.phase("done")
    if results.failures:
        proto.metric("failed_requests", results.failures)
    seconds = time.time() - t_start
    if total_tokens:
        proto.summary(total_tokens, seconds, total_tokens / seconds)


def main(argv=None):
    proto = Protocol()
    with guard(proto):
        args = parse_args(argv if argv is not None else sys.argv[1:])
        if args.online:
            online(args, proto)
        else:
            offline(args, proto)


if __name__ == "__main__":
    main()
