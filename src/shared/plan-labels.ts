/** What a newcomer calls the plan's fields (the designer's labels). */
const LABELS: Record<string, string> = {
  name: 'Name',
  backend: 'Backend',
  devices: 'Devices',
  workloads: 'Workloads',
  caps: 'Caps',
  'caps.from': 'Caps "from"',
  'caps.to': 'Caps "to"',
  'caps.step': 'Caps "step"',
  repetitions: 'Repetitions',
  order: 'Order',
  seed: 'Seed',
  warmup: 'Warm-up',
  'warmup.seconds': 'Warm-up',
  'warmup.steps': 'Warm-up',
  window: 'Window',
  'window.seconds': 'Window',
  'window.steps': 'Window',
  cooldown_s: 'Cool-down',
  sample_interval_ms: 'Sampling interval',
  overhead_w: 'Node overhead',
  observe_only: 'Observe only',
  on_failure: 'On a failed run',
  hang_timeout_s: 'Hang timeout',
  run_timeout_s: 'Run timeout',
  sim: 'Simulation options',
  'sim.speedup': 'Simulation speed-up',
  'sim.devices': 'Simulated presets',
};

/**
 * A list entry is named by its 0-based position, as the issue's path and the plan file count it (`devices.0` is
 * `Devices[0]`): "Device 1" for the first entry read as GPU index 1, which a devices list also holds.
 */
export function fieldLabel(path: string): string {
  if (LABELS[path]) return LABELS[path];
  const param = /^workloads\.(\d+)\.params\.(\w+)/.exec(path);
  if (param) return `Workloads[${param[1]}] parameter ${param[2]}`;
  const w = /^workloads\.(\d+)\.(\w+)/.exec(path);
  if (w) return `Workloads[${w[1]}] ${w[2] === 'id' ? 'name' : w[2]}`;
  const a = /^caps\.adaptive\.(\w+)/.exec(path);
  if (a) return `Adaptive caps "${a[1]}"`;
  const c = /^caps\.(\d+)$/.exec(path);
  if (c) return `Caps[${c[1]}]`;
  const d = /^devices\.(\d+)$/.exec(path);
  if (d) return `Devices[${d[1]}]`;
  return path || 'The plan';
}

/** `Label: message` unless the message already starts with the field's label (schema messages do). */
export function issueText(i: { path: string; message: string }): string {
  const label = fieldLabel(i.path);
  return !i.path || i.message.startsWith(label) ? i.message : `${label}: ${i.message}`;
}
