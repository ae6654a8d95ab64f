import { parseProtocolLine, PROTOCOL_PREFIX, type ProtocolEvent } from '../../shared/protocol';
import { AdapterError, excerpt, fileName, splitLines, type ThroughputAdapter } from './types';

type StepEvent = Extract<ProtocolEvent, { ev: 'step' }>;

/**
 * CapLab's own line protocol (docs/line-protocol.md). The measured window is the workload's own `measure` phase
 * when it announces one, else every step after the first `skip` (default 1) steps.
 */
export const protocolAdapter: ThroughputAdapter = {
  name: 'protocol',
  title: "CapLab line protocol (`@caplab {json}` lines)",
  defaultUnits: 'units',
  defaultSkip: 1,
  skipCounts: 'steps (when the log has no measure phase)',
  detect(text) {
    const at = text.indexOf(PROTOCOL_PREFIX + '{');
    if (at < 0) return 0;
    return text.includes('"ev":"step"') || text.includes('"ev": "step"') ? 0.97 : 0.6;
  },
  read(text, opts) {
    const file = fileName(opts);
    const lines = splitLines(text);
    const events: { line: number; ev: ProtocolEvent }[] = [];
    const invalid: { line: number; error: string; text: string }[] = [];
    lines.forEach((raw, i) => {
      const p = parseProtocolLine(raw);
      if (p.kind === 'event') events.push({ line: i + 1, ev: p.event });
      else if (p.kind === 'invalid') invalid.push({ line: i + 1, error: p.error, text: excerpt(p.text) });
    });
    if (invalid.length && invalid.length >= events.length) {
      const f = invalid[0]!;
      throw new AdapterError(`invalid @caplab line (${f.error}): ${f.text}; ${invalid.length} of ${invalid.length + events.length} protocol lines are invalid`, file, f.line);
    }
    const start = events.find((e) => e.ev.ev === 'start')?.ev as Extract<ProtocolEvent, { ev: 'start' }> | undefined;
    const errors = events.filter((e) => e.ev.ev === 'error').map((e) => ({ line: e.line, ...(e.ev as Extract<ProtocolEvent, { ev: 'error' }>) }));
    const steps = events.filter((e) => e.ev.ev === 'step') as { line: number; ev: StepEvent }[];
    if (!steps.length) {
      const why = errors.length ? `; the workload reported an error: ${errors[0]!.message}` : '';
      throw new AdapterError(`no step events in the log${why}`, file, errors[0]?.line ?? null);
    }

    // The workload's own measure phase, if it announced one.
    let measureFrom: number | null = null;
    let measureTo = Infinity;
    for (const e of events) {
      if (e.ev.ev !== 'phase') continue;
      if (e.ev.name === 'measure' && measureFrom === null) measureFrom = e.line;
      else if (measureFrom !== null && (e.ev.name === 'cooldown' || e.ev.name === 'done') && measureTo === Infinity) measureTo = e.line;
    }
    let chosen: { line: number; ev: StepEvent }[];
    let method: string;
    const skip = opts.skip ?? this.defaultSkip;
    if (measureFrom !== null && opts.skip === undefined) {
      chosen = steps.filter((s) => s.line > measureFrom! && s.line < measureTo);
      method = 'measure phase';
    } else {
      chosen = steps.slice(skip);
      method = `all steps after the first ${skip}`;
    }
    if (!chosen.length) {
      throw new AdapterError(`no steps in the measured window (${method}; ${steps.length} steps in all)`, file, steps[steps.length - 1]!.line);
    }
    const first = chosen[0]!.ev;
    const last = chosen[chosen.length - 1]!.ev;
    const startT = first.t - first.dt;
    const seconds = last.t - startT;
    const count = chosen.reduce((a, s) => a + s.ev.units, 0);
    if (!(seconds > 0)) throw new AdapterError('the measured window has no length (step times do not advance)', file, chosen[0]!.line);
    const rate = count / seconds;
    const gpus = start?.gpus ?? 1;
    const summary = events.find((e) => e.ev.ev === 'summary')?.ev;
    return {
      adapter: 'protocol',
      units: opts.units ?? start?.units ?? this.defaultUnits,
      count,
      seconds,
      rate,
      window: { start: startT, end: last.t },
      window_derived: 'absolute: protocol step times from the warm-up end to the last step',
      details: {
        method,
        steps: chosen.length,
        steps_total: steps.length,
        step_seconds: chosen.reduce((a, s) => a + s.ev.dt, 0),
        workload: start?.workload ?? null,
        gpus,
        rate_per_gpu: rate / gpus,
        batch_size: start?.batch_size ?? null,
        summary: summary ?? null,
        metrics: Object.fromEntries(events.filter((e) => e.ev.ev === 'metric').map((e) => [(e.ev as Extract<ProtocolEvent, { ev: 'metric' }>).name, (e.ev as Extract<ProtocolEvent, { ev: 'metric' }>).value])),
        errors: errors.map((e) => ({ line: e.line, kind: e.kind, message: e.message })),
        invalid_lines: invalid.length,
        first_invalid: invalid[0] ?? null,
      },
    };
  },
};
