import { describe, expect, it } from 'vitest';
import { Plan } from '../../src/shared/plan';
import { defaultForm, formToPlan, parseParamValue, planToForm } from '../../src/renderer/lib/plan-form';
import { templates } from '../../src/renderer/lib/templates';
import { commandForKey } from '../../src/renderer/lib/keys';
import { parseHash } from '../../src/renderer/lib/routes';

describe('designer form <-> plan', () => {
  it('the default form and every template make a valid plan', () => {
    expect(Plan.safeParse(formToPlan(defaultForm())).success).toBe(true);
    for (const t of templates) {
      const r = Plan.safeParse(formToPlan(t.form));
      expect(r.success, `${t.id}: ${r.success ? '' : r.error.message}`).toBe(true);
    }
  });

  it('round-trips grid, list and adaptive caps, spans in steps and simulation presets', () => {
    for (const caps of [{ from: 200, to: 700, step: 50 }, [250, 300, 450], { adaptive: { from: 200, to: 700, step: 100, width_w: 20, max_runs: 8 } }]) {
      const plan = Plan.parse({
        name: 'x',
        devices: [0, 2],
        workloads: [{ id: 'llama_pretrain', params: { batch_size: 4, seq_len: 512, compile: true, model: 'llama3-8b' } }],
        caps,
        warmup: { steps: 20 },
        window: { seconds: 45 },
        sim: { speedup: 30, devices: ['h100-sxm', 'h200', 'mi300x'] },
      });
      expect(Plan.parse(formToPlan(planToForm(plan)))).toEqual(plan);
    }
  });

  it('parses parameter values into numbers and booleans where they look like them', () => {
    expect(parseParamValue('64')).toBe(64);
    expect(parseParamValue('1e-4')).toBe(0.0001);
    expect(parseParamValue('true')).toBe(true);
    expect(parseParamValue('bf16')).toBe('bf16');
    expect(parseParamValue(' 7 ')).toBe(7);
  });
});

describe('shortcuts and routes', () => {
  type Mods = Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }>;
  const key = (k: string, mods: Mods = {}, target: unknown = null) =>
    commandForKey({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, target: target as Parameters<typeof commandForKey>[0]['target'], ...mods });

  it('maps keys to commands, but not while typing', () => {
    expect(key('1')).toBe('nav:devices');
    expect(key('5')).toBe('nav:history');
    expect(key('Enter', { ctrlKey: true })).toBe('sweep:start');
    expect(key('.', { metaKey: true })).toBe('sweep:cancel');
    expect(key('t')).toBe('theme:toggle');
    expect(key('t', {}, { tagName: 'INPUT', isContentEditable: false, closest: () => null })).toBeNull();
    expect(key('x')).toBeNull();
  });

  it('parses hash routes', () => {
    expect(parseHash('#/results/12')).toEqual({ page: 'results', param: '12' });
    expect(parseHash('')).toEqual({ page: 'devices', param: null });
    expect(parseHash('#/nope')).toEqual({ page: 'devices', param: null });
  });
});
