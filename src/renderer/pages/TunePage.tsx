import { useState } from 'react';
import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import { FieldMessage, NumberField, SelectField } from '../components/Fields';
import { SimulationFields } from '../components/SimulationFields';
import { api } from '../api/client';
import { navigate } from '../lib/route';
import { ADVANCED_TUNE_FIELDS, defaultTuneForm, tuneInputOf, type TuneField, type TuneForm } from '../lib/tune-form';
import { isRunning, useSweep } from '../state/sweep';
import { live, ptyBuffer } from '../state/live';
import { toast, toastError } from '../state/toasts';
import { backendChoices } from '../../shared/backends';
import { selectorInfo, selectorList } from '../../shared/selectors';
import { AnalysisOptions } from '../../shared/analysis';

/** The form, kept across page changes and reloads like the designer's. */
const useTuneForm = create<{ form: TuneForm; update(patch: Partial<TuneForm>): void }>()(
  persist((set, get) => ({ form: defaultTuneForm, update: (patch) => set({ form: { ...get().form, ...patch } }) }), {
    name: 'caplab.tune',
    version: 1,
    partialize: (s) => ({ form: s.form }),
    // A form kept before a field was added gets that field's default.
    merge: (kept, current) => ({ ...current, form: { ...defaultTuneForm, ...(kept as { form?: Partial<TuneForm> } | undefined)?.form } }),
  }),
);

// The tuner judges its goal with the analysis defaults (10 % slowdown budget, equal weights), as `caplab tune` does.
const analysisDefaults = AnalysisOptions.parse({});
const selectorOptions = selectorList.map((s) => ({ value: s.id, label: selectorInfo(s.id).title(analysisDefaults) }));

/** `caplab tune -- CMD` from the app: the job as an argv, the tuner's options, and Start, which opens the console. */
export function TunePage() {
  const { form, update } = useTuneForm();
  const running = useSweep(isRunning);
  const [starting, setStarting] = useState(false);
  const [advanced, setAdvanced] = useState(false);
  const checked = tuneInputOf(form);
  const problem = (field: TuneField) => (form.line.trim() === '' && field === 'line' ? undefined : checked.problems.find((p) => p.field === field)?.message);
  const advancedProblem = ADVANCED_TUNE_FIELDS.some((f) => problem(f));

  async function start() {
    if (!checked.input) return toast('error', `Fix the form first: ${checked.problems.map((p) => p.message).join('; ')}`);
    setStarting(true);
    try {
      const { sweep_id } = await api.startTune(checked.input);
      // The live store was reset by the sweep.started event (which may arrive before this reply).
      if (live.sweepId !== sweep_id) {
        live.reset(sweep_id);
        ptyBuffer.clear();
      }
      await useSweep.getState().follow(sweep_id);
      toast('info', `Tuning session #${sweep_id} started: ${checked.argv.join(' ')}`);
      navigate('console');
    } catch (e) {
      toastError(e);
    } finally {
      setStarting(false);
    }
  }

  const text = (field: 'file' | 'pattern' | 'units' | 'devices' | 'caps' | 'adapter' | 'cwd' | 'hold', label: string, placeholder: string, title: string) => (
    <label className="field" title={title}>
      <span>{label}</span>
      <input value={form[field]} placeholder={placeholder} data-testid={`tune-${field}`} onChange={(e) => update({ [field]: e.target.value })} />
      <FieldMessage error={problem(field)} testId={`tune-${field}`} />
    </label>
  );

  return (
    <section className="page tune" aria-labelledby="tune-title">
      <header className="page-head">
        <h2 id="tune-title">Tune a job</h2>
      </header>
      <div className="designer-grid">
        <div className="designer-form">
          <fieldset className="group">
            <legend>The job</legend>
            <label className="field wide">
              <span>Command</span>
              <input
                value={form.line}
                placeholder="torchrun --nproc-per-node 1 train.py --epochs 3"
                spellCheck={false}
                data-testid="tune-command"
                onChange={(e) => update({ line: e.target.value })}
              />
              <FieldMessage error={problem('line')} testId="tune-command" />
            </label>
            <div className="small argv-list" data-testid="tune-argv-list">
              <span className="muted">Runs as {checked.argv.length} argument{checked.argv.length === 1 ? '' : 's'}, with no shell (no $VARIABLES, globs, pipes or ;): </span>
              {checked.argv.map((a, i) => (
                <code key={i} className="argv" data-testid="tune-argv">
                  {a}
                </code>
              ))}
            </div>
            <div className="row wrap">
              {text('cwd', 'Run in folder', 'the CapLab host\'s folder', 'An absolute path: the job starts there, and a relative "Read from file" is read from there')}
              {text('devices', 'Devices', '0', 'Device indexes capped together, one cap for all (like --devices 0,1)')}
              <div className="field-stack">
                <SelectField label="Backend" value={form.backend} options={backendChoices} onChange={(backend) => update({ backend })} testId="tune-backend" />
              </div>
              <NumberField label="Expected job length" value={form.jobSeconds} unit="s" onChange={(jobSeconds) => update({ jobSeconds })} testId="tune-job-seconds" error={problem('jobSeconds')} title="--job-seconds: the profiling budget is a share of it" />
            </div>
          </fieldset>
          <fieldset className="group">
            <legend>Reading its progress</legend>
            <div className="row wrap">
              {text('adapter', 'Adapter', 'auto', 'auto, or a throughput adapter by name (caplab throughput --help lists them)')}
              {text('pattern', 'Pattern (regex adapter)', 'e.g. (\\d+) tokens/s', 'A regular expression whose first group is the rate or a count')}
              {text('units', 'Units', 'e.g. tokens', 'What the job counts (images, tokens, samples ...)')}
              {text('file', 'Read from file', 'the job output', 'Read progress from this file (a metrics.csv, a log) instead of the job output')}
            </div>
          </fieldset>
          <fieldset className="group">
            <legend>Profiling</legend>
            <div className="row wrap">
              <SelectField label="Goal" value={form.selector} options={selectorOptions} onChange={(selector) => update({ selector })} testId="tune-selector" />
              {text('caps', 'Caps', 'a coarse grid over the device', 'FROM:TO:STEP or a list of watts, like --caps')}
              <NumberField label="Margin" value={form.marginPct} unit="%" onChange={(marginPct) => update({ marginPct })} testId="tune-margin" error={problem('marginPct')} title="Caps this close to the best count as equivalent; profiling stops when the answer is settled at it" />
              <NumberField label="Profiling at most" value={form.maxSharePct} unit="% of the job" onChange={(maxSharePct) => update({ maxSharePct })} testId="tune-max-share" error={problem('maxSharePct')} title="--max-profile-share: then the best so far is held" />
              <NumberField label="Node overhead" value={form.overheadW} unit="W" onChange={(overheadW) => update({ overheadW })} testId="tune-overhead" error={problem('overheadW')} />
            </div>
          </fieldset>
          {/* Open by itself when one of its fields has a problem, so the problem is seen where it is. */}
          <details className="group advanced" open={advanced || advancedProblem} onToggle={(e) => setAdvanced(e.currentTarget.open)} data-testid="tune-advanced">
            <summary>Advanced: hold a cap, seed, time-outs</summary>
            <div className="row wrap">
              {text('hold', 'Hold a cap (W)', 'blank: profile', '--hold W: profile nothing, hold this cap from the job\'s steady state to its end (a cap found before, or the default limit as a baseline)')}
              <NumberField label="Seed" value={form.seed} step={1} onChange={(seed) => update({ seed })} testId="tune-seed" error={problem('seed')} title="--seed: the random order of the visits (the same seed visits caps in the same order)" />
              <NumberField
                label="Wait for a rate"
                value={form.rateTimeoutS}
                unit="s"
                onChange={(rateTimeoutS) => update({ rateTimeoutS })}
                testId="tune-rate-timeout"
                error={problem('rateTimeoutS')}
                title="--rate-timeout: a job whose output gives no steady rate by then is refused (ended, no limit changed)"
              />
              <NumberField label="Hung after silence of" value={form.hangTimeoutS} unit="s" onChange={(hangTimeoutS) => update({ hangTimeoutS })} testId="tune-hang-timeout" error={problem('hangTimeoutS')} title="--hang-timeout: a job silent this long is ended and the limits restored" />
            </div>
          </details>
          <SimulationFields speedup={form.simSpeedup} presets={form.simDevices} onChange={update} testPrefix="tune-" speedupError={problem('simSpeedup')} presetsError={problem('simDevices')}>
            <p className="muted small">
              Used only on the simulated backend. A simulated job: <code>caplab sim-workload --workload vit_l_16 --devices 0 --state-dir DIR</code> (DIR: the host&apos;s CAPLAB_SIM_STATE_DIR).
            </p>
          </SimulationFields>
        </div>
        <aside className="designer-side card" data-testid="tune-check" aria-live="polite">
          <h3>Check</h3>
          {checked.input ? (
            <>
              <p className="ok" data-testid="tune-ok">
                Ready: the limit is journalled before the first change and restored when the job ends, fails or is cancelled.
              </p>
              {checked.input.hold_w != null && (
                <p className="small" data-testid="tune-hold-note">
                  Holds {checked.input.hold_w} W from the job&apos;s steady state to its end: no cap is profiled (goal, caps and margin are not used).
                </p>
              )}
            </>
          ) : form.line.trim() === '' ? (
            <p className="muted small">Type the job&apos;s command to start.</p>
          ) : (
            <ul className="error" data-testid="tune-errors">
              {checked.problems.map((p) => (
                <li key={p.field}>{p.message}</li>
              ))}
            </ul>
          )}
          <button className="primary big" disabled={starting || running || !checked.input} onClick={() => void start()} data-testid="start-tune">
            {running ? 'A sweep or session is running' : starting ? 'Starting…' : 'Start tuning'}
          </button>
          <p className="muted small">The Run console shows the session live: each cap visited as a run, the cap held, the share of the job spent profiling.</p>
        </aside>
      </div>
    </section>
  );
}
