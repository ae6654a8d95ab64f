import { useEffect, useRef, useState } from 'react';
import { CheckField, FieldMessage, NumberField, SelectField } from '../components/Fields';
import { PlanIssuesContext } from './designer/field-errors';
import { issuesAt } from '../lib/plan-issues';
import { SimulationFields } from '../components/SimulationFields';
import { api, ApiCallError } from '../api/client';
import { useCommand } from '../lib/commands';
import { formatDuration } from '../lib/format';
import { navigate } from '../lib/route';
import { templates } from '../lib/templates';
import { useDesigner } from '../state/designer';
import { useDevices } from '../state/devices';
import { toast, toastError } from '../state/toasts';
import { useSweep, isRunning } from '../state/sweep';
import { CapsEditor } from './designer/CapsEditor';
import { AdaptiveEditor } from './designer/AdaptiveEditor';
import { WorkloadsEditor } from './designer/WorkloadsEditor';
import { downloadPlanYaml, formFromYaml } from './designer/plan-io';
import { live, ptyBuffer } from '../state/live';
import { backendChoices } from '../../shared/backends';
import type { PlanIssue } from '../../shared/api/plans';
import { issueText } from '../../shared/plan-labels';


export function DesignerPage() {
  const { form, update, replace, validation, validating, validationError, validate, refused, refuse } = useDesigner();
  const { devices, load } = useDevices();
  const sweep = useSweep();
  const running = isRunning(sweep);
  const [starting, setStarting] = useState(false);
  /** A plan file that could not be loaded, with its problems (the form keeps what it had). */
  const [yamlLoad, setYamlLoad] = useState<{ file: string; issues: PlanIssue[] } | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  // A refused start's problems are newer than the last check's: they are what each field shows until the form changes.
  const issues = refused ?? validation?.issues ?? [];
  const err = (...paths: string[]) => issuesAt(issues, ...paths);
  const warnings = validation?.ok ? validation.warnings : [];
  const warn = (...paths: string[]) => issuesAt(warnings, ...paths);

  useEffect(() => {
    if (!devices.length) void load();
    void validate();
  }, [devices.length, load, validate]);

  const presets = form.simDevices.split(/[\s,]+/).filter(Boolean);
  const gpus = devices.filter((d) => d.kind === 'gpu');
  const count = Math.max(gpus.length, form.backend === 'sim' || presets.length ? presets.length : 0, ...form.devices.map((i) => i + 1), 1);
  const indexes = Array.from({ length: count }, (_, i) => i);

  async function start() {
    if (running) return toast('warn', 'A sweep is already running: cancel it or wait for it to end.');
    const v = await validate();
    if (!v?.ok || !v.plan) return toast('error', `The plan has errors: ${v?.errors.join('; ') ?? validationError ?? 'validation failed'}`);
    setStarting(true);
    try {
      const { sweep_id } = await api.startSweep({ plan: v.plan });
      // The live store was reset by the sweep.started event (which may arrive before this reply).
      if (live.sweepId !== sweep_id) {
        live.reset(sweep_id);
        ptyBuffer.clear();
      }
      await useSweep.getState().follow(sweep_id);
      toast('info', `Sweep #${sweep_id} started (${v.run_count} runs).`);
      navigate('console');
    } catch (e) {
      if (e instanceof ApiCallError && e.issues.length) refuse(e.issues);
      toastError(e);
    } finally {
      setStarting(false);
    }
  }

  async function save() {
    const v = await validate();
    if (!v?.ok || !v.plan) return toast('error', 'Fix the plan\'s errors before saving it.');
    try {
      await downloadPlanYaml(v.plan);
    } catch (e) {
      toastError(e);
    }
  }

  async function loadFile(file: File) {
    const r = await formFromYaml(await file.text());
    setYamlLoad(r.form ? null : { file: file.name, issues: r.issues });
    if (r.form) {
      replace(r.form);
      toast('ok', `Loaded plan "${r.form.name}" from ${file.name}.`);
    }
  }

  useCommand(['sweep:start', 'plan:save', 'plan:open'], (c) => {
    if (c === 'sweep:start') void start();
    else if (c === 'plan:save') void save();
    else fileRef.current?.click();
  });

  // Files dropped on the window (App) arrive here when they are plans.
  useEffect(() => {
    const on = (e: Event) => void loadFile((e as CustomEvent<File>).detail);
    window.addEventListener('caplab:plan-file', on);
    return () => window.removeEventListener('caplab:plan-file', on);
  });

  return (
    <section className="page designer" aria-labelledby="designer-title">
      <header className="page-head">
        <h2 id="designer-title">Sweep designer</h2>
        <div className="row">
          <label className="field">
            <span>Template</span>
            <select
              value=""
              data-testid="template-select"
              onChange={(e) => {
                const t = templates.find((x) => x.id === e.target.value);
                if (t) {
                  replace(structuredClone(t.form));
                  toast('info', t.note);
                }
              }}
            >
              <option value="">Start from a template…</option>
              {templates.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.title}
                </option>
              ))}
            </select>
          </label>
          <button onClick={() => fileRef.current?.click()} title="Ctrl+O">
            Load YAML…
          </button>
          <button onClick={() => void save()} title="Ctrl+S" data-testid="save-yaml">
            Save YAML
          </button>
          <input
            ref={fileRef}
            type="file"
            accept=".yaml,.yml,application/yaml,text/yaml"
            hidden
            data-testid="load-yaml"
            onChange={(e) => {
              const f = e.target.files?.[0];
              if (f) void loadFile(f);
              e.target.value = '';
            }}
          />
        </div>
      </header>
      {yamlLoad && (
        <div className="banner warn" data-testid="yaml-errors" role="alert">
          <strong>
            Not loaded: {yamlLoad.file} has {yamlLoad.issues.length} problem{yamlLoad.issues.length === 1 ? '' : 's'}.
          </strong>{' '}
          The form below is unchanged. Fix the file and load it again.{' '}
          <button className="link" onClick={() => setYamlLoad(null)}>
            Dismiss
          </button>
          <ul>
            {yamlLoad.issues.map((i) => (
              <li key={i.path + i.message}>{issueText(i)}</li>
            ))}
          </ul>
        </div>
      )}
      <div className="designer-grid">
        <PlanIssuesContext.Provider value={issues}>
        <div className="designer-form">
          <fieldset className="group">
            <legend>Basics</legend>
            <div className="row wrap">
              <label className="field wide">
                <span>Name</span>
                <input value={form.name} data-testid="plan-name" onChange={(e) => update({ name: e.target.value })} />
                <FieldMessage error={err('name')} testId="plan-name" />
              </label>
              <div className="field-stack">
                <SelectField label="Backend" value={form.backend} options={backendChoices} onChange={(backend) => update({ backend })} testId="plan-backend" />
                <FieldMessage error={err('backend')} testId="plan-backend" />
              </div>
            </div>
            <div className="devices-pick" role="group" aria-label="Devices">
              <span className="label">Devices</span>
              {indexes.map((i) => {
                const d = gpus.find((x) => x.index === i);
                // On simulated GPUs the plan's presets are what it runs on, not what the host's simulated GPUs are now.
                const preset = (form.backend === 'sim' || (d?.simulated ?? gpus.every((g) => g.simulated))) ? presets[i] : undefined;
                return (
                  <CheckField
                    key={i}
                    label={`GPU ${i}${preset ? ` · ${preset} (simulated)` : d ? ` · ${d.name}` : ''}`}
                    checked={form.devices.includes(i)}
                    testId={`device-pick-${i}`}
                    onChange={(on) => update({ devices: on ? [...new Set([...form.devices, i])] : form.devices.filter((x) => x !== i) })}
                  />
                );
              })}
              <FieldMessage error={err('devices')} testId="devices" />
            </div>
          </fieldset>
          <WorkloadsEditor rows={form.workloads} onChange={(workloads) => update({ workloads })} />
          <CapsEditor form={form} update={update} />
          <fieldset className="group">
            <legend>Schedule</legend>
            <div className="row wrap">
              <NumberField label="Repetitions" value={form.repetitions} min={1} max={100} step={1} onChange={(repetitions) => update({ repetitions })} testId="repetitions" error={err('repetitions')} />
              <SelectField label="Order" value={form.order} options={['sequential', 'randomized'] as const} onChange={(order) => update({ order })} testId="order" />
              <NumberField label="Seed" value={form.seed} step={1} onChange={(seed) => update({ seed })} testId="seed" error={err('seed')} />
            </div>
            <div className="row wrap">
              <NumberField label="Warm-up" value={form.warmup} unit={form.warmupKind === 'seconds' ? 's' : 'steps'} onChange={(warmup) => update({ warmup })} testId="warmup" error={err('warmup')} warning={warn('warmup')} />
              <SelectField label="in" value={form.warmupKind} options={['seconds', 'steps'] as const} onChange={(warmupKind) => update({ warmupKind })} />
              <NumberField label="Window" value={form.window} unit={form.windowKind === 'seconds' ? 's' : 'steps'} onChange={(window) => update({ window })} testId="window" error={err('window')} warning={warn('window')} />
              <SelectField label="in" value={form.windowKind} options={['seconds', 'steps'] as const} onChange={(windowKind) => update({ windowKind })} />
              <NumberField label="Cool-down" value={form.cooldown_s} unit="s" onChange={(cooldown_s) => update({ cooldown_s })} testId="cooldown" error={err('cooldown_s')} />
              <NumberField label="Sampling interval" value={form.sample_interval_ms} unit="ms" onChange={(sample_interval_ms) => update({ sample_interval_ms })} testId="sample-interval" error={err('sample_interval_ms')} />
            </div>
          </fieldset>
          <AdaptiveEditor form={form} update={update} />
          <fieldset className="group">
            <legend>Energy and safety</legend>
            <div className="row wrap">
              <NumberField label="Node overhead" value={form.overhead_w} unit="W" onChange={(overhead_w) => update({ overhead_w })} title="Added to GPU power for the efficiency (the seed paper used a fixed 100 W)" testId="overhead" error={err('overhead_w')} />
              <CheckField label="Observe only (never change limits)" checked={form.observe_only} onChange={(observe_only) => update({ observe_only })} testId="observe-only" />
              <SelectField label="On a failed run" value={form.on_failure} options={['continue', 'stop'] as const} onChange={(on_failure) => update({ on_failure })} />
              <NumberField label="Hang timeout" value={form.hang_timeout_s} unit="s" onChange={(hang_timeout_s) => update({ hang_timeout_s })} testId="hang-timeout" error={err('hang_timeout_s')} warning={warn('hang_timeout_s')} />
              <NumberField label="Run timeout" value={form.run_timeout_s} unit="s" onChange={(run_timeout_s) => update({ run_timeout_s })} testId="run-timeout" error={err('run_timeout_s')} />
            </div>
          </fieldset>
          <SimulationFields speedup={form.simSpeedup} presets={form.simDevices} onChange={update} speedupError={err('sim.speedup')} presetsError={err('sim.devices')}>
            <p className="muted small">Used only when the plan runs on the simulated backend.</p>
          </SimulationFields>
        </div>
        </PlanIssuesContext.Provider>
        <aside className="designer-side card" data-testid="validation" data-validating={validating ? 'true' : 'false'} aria-live="polite" aria-busy={validating}>
          <h3>Check</h3>
          {validating && <p className="muted small">checking…</p>}
          {validationError && <p className="error">{validationError}</p>}
          {validation && validation.ok && !refused && (
            <p className="ok" data-testid="validation-ok">
              {yamlLoad ? 'The form is valid (the file was not loaded).' : warnings.length ? `Plan is valid, with ${warnings.length} warning${warnings.length === 1 ? '' : 's'}:` : 'Plan is valid.'}
            </p>
          )}
          {warnings.length > 0 && (
            <ul className="warn small" data-testid="validation-warnings">
              {warnings.map((i) => (
                <li key={i.path + i.message}>{issueText(i)}</li>
              ))}
            </ul>
          )}
          {refused && (
            <>
              <p className="error small">
                The sweep was refused: {refused.length} problem{refused.length === 1 ? '' : 's'}, each also shown at its field:
              </p>
              <ul className="error" data-testid="start-refused">
                {refused.map((i) => (
                  <li key={i.path + i.message}>{issueText(i)}</li>
                ))}
              </ul>
            </>
          )}
          {validation && !validation.ok && (
            <>
              <p className="error small">
                {validation.issues.length} problem{validation.issues.length === 1 ? '' : 's'}, each also shown at its field:
              </p>
              <ul className="error" data-testid="validation-errors">
                {validation.issues.map((i) => (
                  <li key={i.path + i.message}>{issueText(i)}</li>
                ))}
              </ul>
            </>
          )}
          <dl className={`facts ${validating ? 'stale' : ''}`}>
            <dt>Runs</dt>
            <dd data-testid="run-count">{validation?.ok ? validation.run_count : '–'}</dd>
            <dt>Estimated</dt>
            <dd data-testid="estimate" title={validation?.estimate_basis ?? undefined}>
              {validation?.estimate_s != null ? formatDuration(validation.estimate_s) : '–'}
            </dd>
            {validation?.adaptive_estimate && (
              <>
                <dt>Adaptive</dt>
                <dd data-testid="adaptive-estimate" title={validation.adaptive_estimate.assumptions}>
                  about {formatDuration(validation.adaptive_estimate.adaptive_s)}, at most {formatDuration(validation.adaptive_estimate.max_s)} (fixed: {formatDuration(validation.adaptive_estimate.fixed_s)})
                </dd>
              </>
            )}
          </dl>
          <button className="primary big" disabled={starting || running || validating || !validation?.ok} onClick={() => void start()} data-testid="start-sweep" title="Ctrl+Enter">
            {running ? 'A sweep is running' : starting ? 'Starting…' : 'Start sweep'}
          </button>
          {form.observe_only && <p className="muted small">Observe-only: limits are read and recorded, never changed.</p>}
        </aside>
      </div>
    </section>
  );
}
