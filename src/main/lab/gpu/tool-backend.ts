/**
 * What the command-line backends (nvidia-smi; amd-smi and rocm-smi) share: their options, warnings reported once,
 * the wall clock of their samples, and setting a power cap through the tool with the limit read back.
 */
import type { IPty } from 'node-pty';
import type { DeviceInfo } from '../../../shared/device';
import { BackendError } from './backend';
import type { BackendName } from '../../../shared/device';
import { setCap, type SetCapResult } from './cap-setter';

export interface ToolBackendOptions {
  env?: NodeJS.ProcessEnv;
  onWarning?: (message: string) => void;
  onPty?: (p: IPty) => void;
  privilege?: 'auto' | 'root' | 'sudo';
  /** Time limit of each tool call that reads (default: each call's own, 10 to 30 s). */
  toolTimeoutMs?: number;
}

export abstract class ToolBackend<O extends ToolBackendOptions> {
  abstract readonly name: BackendName;
  readonly warnings: string[] = [];
  protected devices: DeviceInfo[] = [];
  private readonly warned = new Set<string>();
  private readonly perfAnchor = performance.now();
  private readonly epochAnchor = Date.now() / 1000;

  protected constructor(protected readonly opts: O) {}

  /** The limit GPU `index` enforces after a cap was set (W), or null where it cannot be read. */
  protected abstract enforcedLimit(index: number): Promise<number | null>;

  /** The tool's own argv setting `watts` on GPU `index` (GpuBackend.capArgv). */
  abstract capArgv(index: number, watts: number): string[];

  protected get env(): NodeJS.ProcessEnv {
    return this.opts.env ?? process.env;
  }

  /** Adds `message` to `warnings` and passes it to `onWarning`, once per `key`. */
  protected warn(message: string, key = message): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.warnings.push(message);
    this.opts.onWarning?.(message);
  }

  /** Epoch seconds at `perfMs`, a `performance.now()` reading. */
  protected epochAt(perfMs: number): number {
    return this.epochAnchor + (perfMs - this.perfAnchor) / 1000;
  }

  now(): number {
    return this.epochAt(performance.now());
  }

  async setPowerLimit(index: number, watts: number): Promise<void> {
    await this.setPowerLimitVerified(index, watts);
  }

  async setPowerLimitVerified(index: number, watts: number): Promise<SetCapResult> {
    const d = this.devices.find((x) => x.index === index);
    if (!d) throw new BackendError(`${this.name}: no GPU with index ${index}`, this.name, 'no-device');
    return setCap({
      backend: this.name,
      argv: this.capArgv(index, watts),
      index,
      watts,
      constraints: d,
      readBack: () => this.enforcedLimit(index),
      privilege: this.opts.privilege,
      onPty: this.opts.onPty,
      env: this.env,
      label: `GPU ${index} (${d.name})`,
    });
  }
}
