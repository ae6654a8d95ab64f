/**
 * AMD backend through the command-line tools: `amd-smi` (ROCm 6+), falling back to `rocm-smi`.
 *
 * Output formats as documented by AMD:
 * - amd-smi: "AMD SMI CLI tool usage" (ROCm/amdsmi docs/how-to/amdsmi-cli-tool.md) for the commands and flags
 *   (`static -a -b -V -d -l`, `metric -p -c -t -u -m -E`, `list`, `set -g N -o W`), and the JSON the CLI builds in
 *   amdsmi_cli/amdsmi_commands.py: a list of per-GPU objects (newer releases wrap it as {"gpu_data": [...]}),
 *   keyed "gpu"; numbers as {"value": v, "unit": u} or "N/A"; static "limit" {max_power, min_power,
 *   socket_power} (older: max_power, current_power as "550 W" strings); metric "power" {socket_power,
 *   gfx_voltage, ..., throttle_status}, "clock" {gfx_0: {clk, min_clk, ...}, mem_0: {...}}, "temperature"
 *   {edge, hotspot, mem}, "usage" {gfx_activity, umc_activity, mm_activity}, "mem_usage" {used_vram, total_vram},
 *   "energy" {total_energy_consumption}.
 * - rocm-smi: ROCm SMI python tool README (rocm_smi_lib python_smi_tools/README.md) — `--json` prints
 *   {"card0": {"<field name>": "<string value>"}, "system": {...}} with the same field names as the text output,
 *   e.g. "Average Graphics Package Power (W)" (MI200) / "Current Socket Graphics Package Power (W)" (MI300),
 *   "Max Graphics Package Power (W)" (the current cap), "Temperature (Sensor junction) (C)", "GPU use (%)",
 *   "sclk clock speed:" "(1700Mhz)", "Accumulated Energy (uJ)"; limits set with `--setpoweroverdrive W`.
 *
 * Sensor semantics (DOMAIN.md): socket power is an average on MI200 and a current reading on MI300.
 * Both tools start a Python process per call (hundreds of ms), so sampling runs one call after another in the
 * background and sample() returns the latest result; the effective interval is the tool's run time.
 */
import type { DeviceInfo, Sample, SensorKind } from '../../../shared/device';
import { BackendError, type BackendModule, type GpuBackend } from './backend';
import { findOnPath, formatWatts, runTool, tail } from './tool-exec';
import { ToolBackend, type ToolBackendOptions } from './tool-backend';

type Json = unknown;

/** A number from amd-smi/rocm-smi JSON: 42, "42.0", "550 W", "(1700Mhz)", {"value": 42, "unit": "W"}; null for "N/A". */
export function amdValue(x: Json): number | null {
  if (typeof x === 'number') return Number.isFinite(x) ? x : null;
  if (typeof x === 'string') {
    const m = /-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/i.exec(x);
    if (!m || /^\s*n\/a\s*$/i.test(x)) return null;
    return Number(m[0]);
  }
  if (x && typeof x === 'object' && 'value' in x) return amdValue((x as { value: Json }).value);
  return null;
}

/** Unit of a {"value", "unit"} object or a "550 W" string, lower-cased; null when absent. */
function amdUnit(x: Json): string | null {
  if (x && typeof x === 'object' && 'unit' in x) return String((x as { unit: Json }).unit).toLowerCase();
  if (typeof x === 'string') {
    const m = /[-\d.]+\s*([a-zµ]+)/i.exec(x);
    return m ? m[1]!.toLowerCase() : null;
  }
  return null;
}

function amdText(x: Json): string | null {
  if (typeof x === 'string') return x.trim() === '' || /^n\/a$/i.test(x.trim()) ? null : x.trim();
  if (typeof x === 'number') return String(x);
  return null;
}

function obj(x: Json): Record<string, Json> {
  return x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, Json>) : {};
}

/** amd-smi prints warnings before the JSON at times ("WARNING: ... not in render group"): parse from the first bracket. */
export function parseToolJson(text: string): Json {
  const start = text.search(/[[{]/);
  if (start < 0) throw new Error('no JSON in output');
  return JSON.parse(text.slice(start));
}

/** The per-GPU entries of an amd-smi JSON document, list or {"gpu_data": [...]} form. */
export function amdGpuEntries(doc: Json): Record<string, Json>[] {
  const list = Array.isArray(doc) ? doc : Array.isArray(obj(doc).gpu_data) ? (obj(doc).gpu_data as Json[]) : [];
  return list.map(obj).filter((e) => typeof e.gpu === 'number' || typeof e.gpu === 'string');
}

/** Energy in mJ from {"value", "unit"} (J, mJ, uJ/µJ); a bare number is taken as µJ (the library's unit). */
function energyMj(x: Json): number | null {
  const v = amdValue(x);
  if (v === null) return null;
  const unit = amdUnit(x);
  if (unit === 'j') return v * 1000;
  if (unit === 'mj') return v;
  if (unit === 'kj') return v * 1e6;
  return v / 1000;
}

/** Default sensor kind of "socket_power" for an ASIC: current on MI300-class, an average before that. */
export function socketPowerKind(name: string): SensorKind {
  return /MI3\d\d|gfx94/i.test(name) ? 'instant' : 'average';
}

/** `amd-smi static --json` (+ optional `amd-smi list --json` for UUIDs) -> devices. */
export function parseAmdStatic(staticDoc: Json, listDoc: Json = null, notes: string[] = []): DeviceInfo[] {
  const uuids = new Map<number, string>();
  for (const e of amdGpuEntries(listDoc)) {
    const u = amdText(e.uuid);
    if (u) uuids.set(Number(e.gpu), u);
  }
  return amdGpuEntries(staticDoc).map((e) => {
    const index = Number(e.gpu);
    const asic = obj(e.asic);
    const limit = obj(e.limit);
    const board = obj(e.board);
    const name = amdText(asic.market_name) ?? amdText(board.product_name) ?? `AMD GPU ${index}`;
    const maxW = amdValue(limit.max_power ?? limit.max_power_limit);
    const minW = amdValue(limit.min_power ?? limit.min_power_limit);
    const capW = amdValue(limit.socket_power ?? limit.current_power ?? limit.power_cap);
    if (capW === null) notes.push(`amd-smi: GPU ${index}: no current power cap in static --limit`);
    const kind = socketPowerKind(`${name} ${amdText(asic.target_graphics_version) ?? ''}`);
    return {
      id: `amd-smi:${index}`,
      index,
      backend: 'amd-smi',
      kind: 'gpu',
      name,
      vendor: 'AMD',
      simulated: false,
      uuid: amdText(e.uuid) ?? uuids.get(index) ?? null,
      pci_bus_id: amdText(obj(e.bus).bdf),
      driver: amdText(obj(e.driver).version),
      vbios: amdText(obj(e.vbios).version) ?? amdText(obj(e.vbios).part_number) ?? amdText(obj(e.ifwi).version),
      limit_w: capW,
      enforced_limit_w: capW,
      min_limit_w: minW,
      max_limit_w: maxW,
      // amd-smi reports no default; `reset --power-cap` goes to the maximum (DOMAIN.md), so that is the default.
      default_limit_w: maxW,
      sensors: {
        power_kinds: [kind],
        energy_counter: true,
        energy_counter_check: 'unchecked',
        update_period_ms: null,
        note: `amd-smi: socket power is ${kind === 'instant' ? 'a current reading on MI300-class GPUs' : 'an average before MI300'}; each sample runs amd-smi (hundreds of ms)`,
      },
    } satisfies DeviceInfo;
  });
}

export interface AmdMetric {
  index: number;
  sample: Omit<Sample, 't'>;
  notes: string[];
}

/** `amd-smi metric -p -c -t -u -m [-E] --json` -> one partial sample per GPU. `kinds` maps index -> socket_power kind. */
export function parseAmdMetric(doc: Json, kinds: Map<number, SensorKind> = new Map()): AmdMetric[] {
  return amdGpuEntries(doc).map((e) => {
    const index = Number(e.gpu);
    const notes: string[] = [];
    const power = obj(e.power);
    const current = amdValue(power.current_socket_power);
    const average = amdValue(power.average_socket_power);
    const socket = amdValue(power.socket_power);
    let powerW: number | null;
    let kind: SensorKind;
    if (current !== null) {
      powerW = current;
      kind = 'instant';
    } else if (socket !== null) {
      powerW = socket;
      kind = kinds.get(index) ?? 'average';
    } else {
      powerW = average;
      kind = 'average';
    }
    if (powerW === null) notes.push('socket power: N/A');
    const clock = obj(e.clock);
    const gfx = obj(clock.gfx_0 ?? clock.gfx);
    const memClk = obj(clock.mem_0 ?? clock.mem);
    const temp = obj(e.temperature);
    const usage = obj(e.usage);
    const memUsage = obj(e.mem_usage);
    const energy = obj(e.energy);
    const tempC = amdValue(temp.hotspot) ?? amdValue(temp.edge);
    if (tempC === null) notes.push('temperature: N/A');
    const usedVram = memUsage.used_vram;
    const usedUnit = amdUnit(usedVram);
    const used = amdValue(usedVram);
    return {
      index,
      notes,
      sample: {
        device_id: `amd-smi:${index}`,
        power_w: powerW,
        power_kind: kind,
        power_avg_w: average,
        energy_mj: energyMj(energy.total_energy_consumption ?? energy.energy_accumulator),
        sm_clock_mhz: amdValue(gfx.clk),
        mem_clock_mhz: amdValue(memClk.clk),
        temp_c: tempC,
        util_gpu: amdValue(usage.gfx_activity),
        util_mem: amdValue(usage.umc_activity),
        mem_used_mb: used === null ? null : usedUnit === 'gb' ? used * 1024 : used,
        limit_w: null,
        throttle_reasons: null,
      },
    };
  });
}

function rocmCards(doc: Json): [number, Record<string, Json>][] {
  return Object.entries(obj(doc))
    .filter(([k]) => /^card\d+$/.test(k))
    .map(([k, v]) => [Number(k.slice(4)), obj(v)] as [number, Record<string, Json>])
    .sort((a, b) => a[0] - b[0]);
}

function field(card: Record<string, Json>, ...names: string[]): Json {
  const lower = new Map(Object.entries(card).map(([k, v]) => [k.toLowerCase(), v]));
  for (const n of names) {
    const v = lower.get(n.toLowerCase());
    if (v !== undefined) return v;
  }
  return undefined;
}

/** `rocm-smi --showproductname --showbus --showuniqueid --showvbios --showdriverversion --showmaxpower --json`. */
export function parseRocmDevices(doc: Json, notes: string[] = []): DeviceInfo[] {
  const driver = amdText(field(obj(obj(doc).system), 'Driver version'));
  return rocmCards(doc).map(([index, c]) => {
    const name = amdText(field(c, 'Card Series', 'Card series', 'Card model', 'Device Name')) ?? `AMD GPU ${index}`;
    const cap = amdValue(field(c, 'Max Graphics Package Power (W)'));
    if (cap === null) notes.push(`rocm-smi: card${index}: no power cap reported`);
    const kind = socketPowerKind(`${name} ${amdText(field(c, 'GFX Version')) ?? ''}`);
    return {
      id: `rocm-smi:${index}`,
      index,
      backend: 'rocm-smi',
      kind: 'gpu',
      name,
      vendor: 'AMD',
      simulated: false,
      uuid: amdText(field(c, 'Unique ID', 'UUID')),
      pci_bus_id: amdText(field(c, 'PCI Bus')),
      driver,
      vbios: amdText(field(c, 'VBIOS version')),
      limit_w: cap,
      enforced_limit_w: cap,
      min_limit_w: null,
      max_limit_w: null,
      default_limit_w: null,
      sensors: {
        power_kinds: [kind],
        energy_counter: true,
        energy_counter_check: 'unchecked',
        update_period_ms: null,
        note: 'rocm-smi fallback: the allowed cap range is not reported; each sample runs rocm-smi',
      },
    } satisfies DeviceInfo;
  });
}

/** `rocm-smi --showpower --showtemp --showuse --showmeminfo vram --showclocks [--showenergycounter] --json`. */
export function parseRocmMetrics(doc: Json): AmdMetric[] {
  return rocmCards(doc).map(([index, c]) => {
    const notes: string[] = [];
    const current = amdValue(field(c, 'Current Socket Graphics Package Power (W)'));
    const average = amdValue(field(c, 'Average Graphics Package Power (W)'));
    if (current === null && average === null) notes.push('power: N/A');
    const usedB = amdValue(field(c, 'VRAM Total Used Memory (B)'));
    const uj = amdValue(field(c, 'Accumulated Energy (uJ)'));
    return {
      index,
      notes,
      sample: {
        device_id: `rocm-smi:${index}`,
        power_w: current ?? average,
        power_kind: current !== null ? 'instant' : 'average',
        power_avg_w: average,
        energy_mj: uj === null ? null : uj / 1000,
        sm_clock_mhz: amdValue(field(c, 'sclk clock speed:')),
        mem_clock_mhz: amdValue(field(c, 'mclk clock speed:')),
        temp_c: amdValue(field(c, 'Temperature (Sensor junction) (C)')) ?? amdValue(field(c, 'Temperature (Sensor edge) (C)')),
        util_gpu: amdValue(field(c, 'GPU use (%)')),
        util_mem: amdValue(field(c, 'GPU Memory Allocated (VRAM%)', 'GPU memory use (%)')),
        mem_used_mb: usedB === null ? null : Math.round((usedB / 1048576) * 10) / 10,
        limit_w: amdValue(field(c, 'Max Graphics Package Power (W)')),
        throttle_reasons: null,
      },
    };
  });
}

export interface AmdSmiOptions extends ToolBackendOptions {
  /** Which tool: 'auto' (default) tries amd-smi, then rocm-smi. */
  tool?: 'auto' | 'amd-smi' | 'rocm-smi';
  /** Minimum time between the starts of two metric calls (default 100 ms; the tool's run time usually dominates). */
  intervalMs?: number;
}

export class AmdSmiBackend extends ToolBackend<AmdSmiOptions> implements GpuBackend {
  readonly name: 'amd-smi' | 'rocm-smi';
  readonly simulated = false;
  private latest = new Map<number, { sample: Sample; at: number }>();
  private polling = false;
  private closed = false;
  /** Metric calls made, and the last one's duration (ms). */
  calls = 0;
  lastCallMs = 0;

  private constructor(
    readonly tool: 'amd-smi' | 'rocm-smi',
    readonly toolPath: string,
    opts: AmdSmiOptions,
  ) {
    super(opts);
    this.name = tool;
  }

  capArgv(index: number, watts: number): string[] {
    return amdCapArgv(this.tool, index, watts);
  }

  /** Throws BackendError 'unavailable' (neither tool on PATH or working) or 'no-device'. */
  static async open(opts: AmdSmiOptions = {}): Promise<AmdSmiBackend> {
    const env = opts.env ?? process.env;
    const want = opts.tool ?? 'auto';
    const reasons: string[] = [];
    for (const tool of ['amd-smi', 'rocm-smi'] as const) {
      if (want !== 'auto' && want !== tool) continue;
      const path = findOnPath(tool, env);
      if (!path) {
        reasons.push(`${tool}: not on PATH`);
        continue;
      }
      const b = new AmdSmiBackend(tool, path, opts);
      try {
        await b.refreshDevices();
      } catch (e) {
        reasons.push((e as Error).message);
        continue;
      }
      if (b.devices.length === 0) {
        reasons.push(`${tool}: lists no GPU`);
        continue;
      }
      return b;
    }
    const noDevice = reasons.some((r) => /lists no GPU/.test(r));
    throw new BackendError(reasons.join('; '), 'amd-smi', noDevice ? 'no-device' : 'unavailable');
  }

  private async json(args: string[], timeoutMs = this.opts.toolTimeoutMs ?? 30_000): Promise<Json> {
    const r = await runTool([this.toolPath, ...args], { env: this.env, timeoutMs });
    if (r.code !== 0) throw new BackendError(`${this.tool} ${args.join(' ')}: ${tail(`${r.stdout}\n${r.stderr}\n${r.error ?? ''}`) || `exit code ${r.code}`}`, this.tool, 'failed');
    try {
      return parseToolJson(r.stdout);
    } catch (e) {
      throw new BackendError(`${this.tool} ${args.join(' ')}: unparsable JSON (${(e as Error).message})`, this.tool, 'failed');
    }
  }

  /** argv (after the tool) of one metric call. */
  metricArgs(): string[] {
    return this.tool === 'amd-smi'
      ? ['metric', '--power', '--clock', '--temperature', '--usage', '--mem-usage', '--json']
      : ['--showpower', '--showtemp', '--showuse', '--showmeminfo', 'vram', '--showclocks', '--showmaxpower', '--json'];
  }

  private async refreshDevices(): Promise<void> {
    const notes: string[] = [];
    if (this.tool === 'amd-smi') {
      const st = await this.json(['static', '--asic', '--bus', '--vbios', '--driver', '--limit', '--json']);
      let list: Json;
      try {
        list = await this.json(['list', '--json']);
      } catch {
        list = null;
      }
      this.devices = parseAmdStatic(st, list, notes);
    } else {
      const doc = await this.json(['--showproductname', '--showbus', '--showuniqueid', '--showvbios', '--showdriverversion', '--showmaxpower', '--json']);
      this.devices = parseRocmDevices(doc, notes);
    }
    for (const n of notes) this.warn(n);
  }

  async listDevices(): Promise<DeviceInfo[]> {
    await this.refreshDevices();
    return this.devices.map((d) => structuredClone(d));
  }

  private kinds(): Map<number, SensorKind> {
    return new Map(this.devices.map((d) => [d.index, d.sensors.power_kinds[0] ?? 'average']));
  }

  /** One metric call; updates the latest sample per GPU. */
  async pollOnce(): Promise<void> {
    const t0 = performance.now();
    const doc = await this.json(this.metricArgs());
    const t1 = performance.now();
    this.calls++;
    this.lastCallMs = t1 - t0;
    const t = this.epochAt((t0 + t1) / 2);
    const rows = this.tool === 'amd-smi' ? parseAmdMetric(doc, this.kinds()) : parseRocmMetrics(doc);
    for (const r of rows) {
      for (const n of r.notes) this.warn(`${this.tool}: GPU ${r.index}: ${n}; recorded as null`, `${r.index}:${n}`);
      const d = this.devices.find((x) => x.index === r.index);
      const limit = r.sample.limit_w ?? d?.enforced_limit_w ?? null;
      this.latest.set(r.index, { sample: { ...r.sample, t, limit_w: limit }, at: t1 });
    }
  }

  private async pollLoop(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    let failures = 0;
    while (!this.closed) {
      const start = performance.now();
      try {
        await this.pollOnce();
        failures = 0;
      } catch (e) {
        failures++;
        this.warn(`${(e as Error).message}`, `poll:${failures > 3}`);
        if (failures > 10) {
          this.warn(`${this.tool}: metric calls keep failing; sampling stopped`);
          break;
        }
      }
      const wait = (this.opts.intervalMs ?? 100) - (performance.now() - start);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    this.polling = false;
  }

  async sample(indexes: number[]): Promise<Sample[]> {
    if (!this.polling && !this.closed) {
      void this.pollLoop();
      const deadline = performance.now() + 15_000;
      while (performance.now() < deadline && !indexes.every((i) => this.latest.has(i)) && this.polling) await new Promise((r) => setTimeout(r, 20));
    }
    const staleMs = Math.max(10_000, 20 * (this.opts.intervalMs ?? 100));
    const now = performance.now();
    const out: Sample[] = [];
    for (const i of indexes) {
      const l = this.latest.get(i);
      if (!l) continue;
      if (now - l.at > staleMs) {
        this.warn(`${this.tool}: GPU ${i} stopped reporting; left out of samples`, `stale:${i}`);
        continue;
      }
      out.push({ ...l.sample });
    }
    return out;
  }

  async readEnergyMj(index: number): Promise<number | null> {
    try {
      if (this.tool === 'amd-smi') {
        const doc = await this.json(['metric', '--energy', '--gpu', String(index), '--json']);
        const e = amdGpuEntries(doc).find((x) => Number(x.gpu) === index);
        return e ? energyMj(obj(e.energy).total_energy_consumption) : null;
      }
      const doc = await this.json(['-d', String(index), '--showenergycounter', '--json']);
      const card = rocmCards(doc).find(([i]) => i === index)?.[1];
      const uj = card ? amdValue(field(card, 'Accumulated Energy (uJ)')) : null;
      return uj === null ? null : uj / 1000;
    } catch (e) {
      this.warn(`${this.tool}: energy counter of GPU ${index}: ${(e as Error).message}`, `energy:${index}`);
      return null;
    }
  }

  async getPowerLimit(index: number): Promise<number> {
    let v: number | null;
    if (this.tool === 'amd-smi') {
      const doc = await this.json(['static', '--limit', '--gpu', String(index), '--json']);
      const e = amdGpuEntries(doc).find((x) => Number(x.gpu) === index);
      const limit = obj(e?.limit);
      v = amdValue(limit.socket_power ?? limit.current_power ?? limit.power_cap);
    } else {
      const doc = await this.json(['-d', String(index), '--showmaxpower', '--json']);
      const card = rocmCards(doc).find(([i]) => i === index)?.[1];
      v = card ? amdValue(field(card, 'Max Graphics Package Power (W)')) : null;
    }
    if (v === null) throw new BackendError(`${this.tool}: GPU ${index} reports no power cap`, this.tool, 'failed');
    return v;
  }

  protected enforcedLimit(index: number): Promise<number | null> {
    return this.getPowerLimit(index).catch(() => null);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** `amd-smi set --gpu I --power-cap W`, or `rocm-smi -d I --setpoweroverdrive W`. */
export function amdCapArgv(tool: 'amd-smi' | 'rocm-smi', index: number, watts: number): string[] {
  const w = formatWatts(watts);
  return tool === 'amd-smi' ? ['amd-smi', 'set', '--gpu', String(index), '--power-cap', w] : ['rocm-smi', '-d', String(index), '--setpoweroverdrive', w];
}

const amdChosen = (b: GpuBackend, requested: boolean) => {
  const a = b as AmdSmiBackend;
  return requested ? `requested; using ${a.toolPath}` : `using ${a.tool} at ${a.toolPath}`;
};

/** Registry entry: AMD GPUs through amd-smi, falling back to rocm-smi. */
export const amdSmiBackend: BackendModule = {
  id: 'amd-smi',
  auto: true,
  vendor: 'amd',
  open: async (ctx) => ({ backend: await AmdSmiBackend.open({ env: ctx.env, onWarning: ctx.onWarning, onPty: ctx.onPty, privilege: ctx.privilege, intervalMs: ctx.intervalMs, toolTimeoutMs: ctx.toolTimeoutMs }) }),
  chosen: amdChosen,
};

/** Registry entry: AMD GPUs through rocm-smi only (journalled limits set through it are restored through it). */
export const rocmSmiBackend: BackendModule = {
  id: 'rocm-smi',
  auto: false,
  vendor: 'amd',
  open: async (ctx) => ({ backend: await AmdSmiBackend.open({ env: ctx.env, onWarning: ctx.onWarning, onPty: ctx.onPty, privilege: ctx.privilege, intervalMs: ctx.intervalMs, toolTimeoutMs: ctx.toolTimeoutMs, tool: 'rocm-smi' }) }),
  chosen: amdChosen,
};
