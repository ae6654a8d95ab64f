// startTune's payload (src/shared/tune.ts) and the "Tune a job" form that builds it (src/renderer/lib/tune-form.ts):
// defaults as `caplab tune`'s, an argv and never a shell string, problems named at their fields.
import { describe, expect, it } from 'vitest';
import { TuneStart, TUNE_OPTION_DEFAULTS } from '../../src/shared/tune';
import { TUNE_DEFAULTS } from '../../src/main/lab/tune/session';
import { defaultTuneForm, splitCommandLine, tuneInputOf } from '../../src/renderer/lib/tune-form';

const issuesOf = (v: unknown) => {
  const r = TuneStart.safeParse(v);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('TuneStart (startTune input)', () => {
  it('fills the CLI defaults: device 0, most work per joule, a coarse grid, 2 % margin, 10 % of a 1-hour job', () => {
    const t = TuneStart.parse({ argv: ['python', 'train.py'] });
    expect(t).toMatchObject({ argv: ['python', 'train.py'], devices: [0], selector: 'max-efficiency', caps: null, file: null, pattern: null, units: null, hold_w: null, seed: 1, sim_speedup: 1 });
    expect(t.adapter).toBeUndefined();
    // One source of the defaults for the CLI's flags and the app's form.
    expect([t.margin, t.max_profile_share, t.job_seconds, t.rate_timeout_s, t.hang_timeout_s]).toEqual([TUNE_DEFAULTS.margin, TUNE_DEFAULTS.max_profile_share, TUNE_DEFAULTS.expected_s, TUNE_DEFAULTS.rate_timeout_s, TUNE_DEFAULTS.hang_timeout_s]);
    expect(t.overhead_w).toBe(TUNE_OPTION_DEFAULTS.overhead_w);
  });

  it('takes the caps as watts or as --caps text', () => {
    expect(TuneStart.parse({ argv: ['x'], caps: [300, 400] }).caps).toEqual([300, 400]);
    expect(TuneStart.parse({ argv: ['x'], caps: ' 300:700:100 ' }).caps).toBe('300:700:100');
    expect(issuesOf({ argv: ['x'], caps: [300] })).toEqual(['caps: give at least two caps to compare']);
  });

  it('refuses a shell string, an empty job, an empty argument, repeated devices, unknown fields and out-of-range shares', () => {
    expect(issuesOf({ argv: 'python train.py' })[0]).toMatch(/^argv: /);
    expect(issuesOf({ argv: [] })).toEqual(['argv: give the job to run: the command, then its arguments']);
    expect(issuesOf({ argv: ['python', ''] })).toEqual(['argv.1: an argument may not be empty']);
    expect(issuesOf({ argv: ['x'], devices: [0, 0] })).toEqual(['devices: list each device once']);
    expect(issuesOf({ argv: ['x'], shell: true })[0]).toMatch(/shell/);
    expect(issuesOf({ argv: ['x'], margin: 2 })[0]).toMatch(/^margin: /);
    expect(issuesOf({ argv: ['x'], max_profile_share: 0 })[0]).toMatch(/^max_profile_share: /);
    expect(issuesOf({ argv: ['x'], selector: 'fastest' })[0]).toMatch(/^selector: /);
    expect(issuesOf({ argv: ['x'], sim_speedup: 5000 })[0]).toMatch(/^sim_speedup: /);
  });
});

describe('the Tune a job form', () => {
  it('splits a command line into words as a shell would, and expands nothing', () => {
    expect(splitCommandLine(`python  train.py --name "my run" --glob '*.pt' a\\ b $HOME;x`)).toEqual({
      argv: ['python', 'train.py', '--name', 'my run', '--glob', '*.pt', 'a b', '$HOME;x'],
      error: null,
    });
    expect(splitCommandLine(`echo "a \\"q\\" \\n" '' ""`).argv).toEqual(['echo', 'a "q" \\n', '', '']);
    expect(splitCommandLine('echo "open')).toEqual({ argv: [], error: 'the command has an unclosed double quote' });
    expect(splitCommandLine('   ').argv).toEqual([]);
  });

  it('builds startTune input: percentages as fractions, blanks as absent, an adapter only when named', () => {
    const r = tuneInputOf({ ...defaultTuneForm, line: 'torchrun train.py', cwd: ' /work/llm ', devices: '0, 1', caps: '250:450:50', marginPct: 3, maxSharePct: 5, jobSeconds: 7200, units: ' tokens ' });
    expect(r.problems).toEqual([]);
    expect(r.input).toMatchObject({ argv: ['torchrun', 'train.py'], cwd: '/work/llm', devices: [0, 1], caps: '250:450:50', margin: 0.03, max_profile_share: 0.05, job_seconds: 7200, units: 'tokens', file: null, pattern: null });
    expect(r.input).not.toHaveProperty('adapter');
    expect(tuneInputOf({ ...defaultTuneForm, line: 'x' }).input).not.toHaveProperty('cwd');
    expect(tuneInputOf({ ...defaultTuneForm, line: 'x', adapter: 'litgpt', simDevices: 'h200 h200' }).input).toMatchObject({ adapter: 'litgpt', sim_devices: ['h200', 'h200'] });
    // The defaults of the form are the CLI's.
    expect(TuneStart.parse(tuneInputOf({ ...defaultTuneForm, line: 'x' }).input)).toMatchObject({ margin: 0.02, max_profile_share: 0.1, job_seconds: 3600, overhead_w: 100 });
  });

  it('names each problem at its field and starts nothing', () => {
    const r = tuneInputOf({ ...defaultTuneForm, line: 'train "x', devices: '0,a', marginPct: 0, maxSharePct: 150 });
    expect(r.input).toBeNull();
    expect(Object.fromEntries(r.problems.map((p) => [p.field, p.message]))).toMatchObject({
      line: 'the command has an unclosed double quote',
      devices: 'give device indexes like 0 or 0,1',
      marginPct: expect.any(String),
      maxSharePct: expect.any(String),
    });
    expect(tuneInputOf({ ...defaultTuneForm, line: '' }).problems.map((p) => p.field)).toEqual(['line']);
  });

  it('offers every startTune option: hold, seed and the time-outs from the advanced fields, the CLI defaults unchanged', () => {
    const blank = TuneStart.parse(tuneInputOf({ ...defaultTuneForm, line: 'x' }).input);
    expect(blank).toMatchObject({ hold_w: null, seed: 1, rate_timeout_s: TUNE_DEFAULTS.rate_timeout_s, hang_timeout_s: TUNE_DEFAULTS.hang_timeout_s });
    const r = tuneInputOf({ ...defaultTuneForm, line: 'x', hold: ' 350 ', seed: 7, rateTimeoutS: 120, hangTimeoutS: 60 });
    expect(r.problems).toEqual([]);
    expect(r.input).toMatchObject({ hold_w: 350, seed: 7, rate_timeout_s: 120, hang_timeout_s: 60 });
    // Every field of the contract is one of the form's (argv is the command line; backend its picker).
    const formed = Object.keys(TuneStart.parse(tuneInputOf({ ...defaultTuneForm, line: 'x', cwd: '/w', adapter: 'litgpt', simDevices: 'h200' }).input)).sort();
    expect(formed).toEqual(Object.keys(TuneStart.shape).sort());
  });

  it('names a problem of an advanced option at its field', () => {
    const r = tuneInputOf({ ...defaultTuneForm, line: 'x', hold: '300W', seed: 1.5, rateTimeoutS: 0, hangTimeoutS: -1 });
    expect(r.input).toBeNull();
    expect(Object.fromEntries(r.problems.map((p) => [p.field, p.message]))).toEqual({
      hold: 'hold: "300W" is not a number of watts (like 300); leave it blank to profile',
      seed: 'the seed is a whole number',
      rateTimeoutS: 'the wait for a rate is more than 0 s',
      hangTimeoutS: 'the hang time-out is more than 0 s',
    });
    expect(tuneInputOf({ ...defaultTuneForm, line: 'x', hold: '-5' }).problems).toEqual([{ field: 'hold', message: 'the cap to hold is more than 0 W' }]);
  });
});
