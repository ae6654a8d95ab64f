"""A plain PyTorch training job that knows nothing of CapLab, for the reading side of `caplab tune`.

It trains torchvision's ResNet-50 on random images kept on the GPU and logs as the tools CapLab reads do:
torchvision reference-script lines every 10 steps (`Epoch: [E]  [i/N]  ... img/s: R`, the rate-lines adapter) and
an hpc-ai-perf-bench epoch line (`Train Epoch E: Processed N samples in Ts (R samples/sec)`, hpcai-vision).
No limit or clock is touched. Usage: python3 tune_follow_job.py --epochs 4 --steps 40 --batch-size 128
"""
import argparse
import time

import torch
import torchvision


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=128)
    a = p.parse_args()
    dev = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet50().to(dev).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(a.batch_size, 3, 224, 224, device=dev).to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (a.batch_size,), device=dev)
    loss_fn = torch.nn.CrossEntropyLoss()
    print("job: resnet50 bf16 autocast, batch %d on %s" % (a.batch_size, torch.cuda.get_device_name(0)), flush=True)
    for epoch in range(a.epochs):
        t_epoch = time.time()
        t_last = t_epoch
        for i in range(a.steps):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = loss_fn(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if (i + 1) % 10 == 0:
                torch.cuda.synchronize()
                now = time.time()
                print("Epoch: [%d]  [%d/%d]  loss: %.4f  img/s: %.2f" % (epoch, i + 1, a.steps, loss.item(), 10 * a.batch_size / (now - t_last)), flush=True)
                t_last = now
        torch.cuda.synchronize()
        dt = time.time() - t_epoch
        n = a.steps * a.batch_size
        print("Train Epoch %d: Processed %d samples in %.2fs (%.2f samples/sec)" % (epoch, n, dt, n / dt), flush=True)


if __name__ == "__main__":
    main()
