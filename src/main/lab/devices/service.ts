// The devices slice (src/shared/api/devices.ts): this host's GPUs (and RAPL CPU packages), a reading of each now,
// and putting back limits that killed sweeps left changed.
import type { MethodInput, MethodOutput, SliceApi } from '../../../shared/api';
import type { BackendChoice } from '../../../shared/device';
import type { EngineContext } from '../engine-context';
import type { LabBackend } from '../gpu/backend';
import { listCpuPackages, openLabBackend } from '../gpu/lab-backend';
import { restoreDeadOwners } from '../sweep/cap-guard';
import { capContextOf } from '../sweep/engine-caps';

export class DevicesService implements SliceApi<'devices'> {
  /** The backend kept open for sampleDevices polling. */
  private monitor: { choice: BackendChoice; lab: Promise<LabBackend> } | null = null;

  constructor(private readonly ctx: EngineContext) {}

  async listDevices(input: MethodInput<'listDevices'>): Promise<MethodOutput<'listDevices'>> {
    const lab = await openLabBackend(input.backend ?? this.ctx.backend ?? 'auto', { env: this.ctx.env });
    try {
      const cpus = await listCpuPackages(this.ctx.env);
      const reason = cpus.reason ? `${lab.reason}; CPU power (RAPL): ${cpus.reason}` : lab.reason;
      return { backend: lab.backend.name, reason, devices: [...(await lab.backend.listDevices()), ...cpus.devices] };
    } finally {
      await lab.backend.close();
    }
  }

  async sampleDevices(input: MethodInput<'sampleDevices'>): Promise<MethodOutput<'sampleDevices'>> {
    const choice = input.backend ?? this.ctx.backend ?? 'auto';
    if (!this.monitor || this.monitor.choice !== choice) {
      const old = this.monitor;
      this.monitor = null;
      await old?.lab.then((l) => l.backend.close(), () => undefined);
      const entry = { choice, lab: openLabBackend(choice, { env: this.ctx.env }) };
      this.monitor = entry;
      // A backend that failed to open is not kept: the next call (this backend or another) tries again.
      entry.lab.catch(() => {
        if (this.monitor === entry) this.monitor = null;
      });
    }
    const { backend } = await this.monitor.lab;
    const devices = await backend.listDevices();
    return { backend: backend.name, samples: await backend.sample(devices.map((d) => d.index)) };
  }

  async restoreCaps(_input: MethodInput<'restoreCaps'>): Promise<MethodOutput<'restoreCaps'>> {
    this.ctx.writable('restore limits');
    return restoreDeadOwners(capContextOf(this.ctx));
  }

  /** Closes the polling backend (the engine's close). */
  async close(): Promise<void> {
    await this.monitor?.lab.then((l) => l.backend.close()).catch(() => undefined);
  }
}
