import { useEffect, useState } from 'react';

/** A problem shown at its field (validation in words), announced to screen readers. */
export function FieldMessage({ error, testId }: { error?: string; testId?: string }) {
  if (!error) return null;
  return (
    <span className="field-error" role="alert" data-testid={testId ? `${testId}-error` : undefined}>
      {error}
    </span>
  );
}

/** A warning at its field: the value is allowed, but the check expects trouble from it (the plan may still start). */
export function FieldWarning({ warning, testId }: { warning?: string; testId?: string }) {
  if (!warning) return null;
  return (
    <span className="field-warning" role="status" data-testid={testId ? `${testId}-warning` : undefined}>
      ⚠ {warning}
    </span>
  );
}

/**
 * A number input that lets the user type freely. A finite number is reported as is; a blank or malformed entry is
 * reported as NaN (the plan check then names the field) and says so at the field at once, instead of silently
 * keeping the old value.
 */
export function NumberField({ label, value, onChange, min, max, step, unit, testId, title, error, warning }: { label: string; value: number; onChange(v: number): void; min?: number; max?: number; step?: number; unit?: string; testId?: string; title?: string; error?: string; warning?: string }) {
  const blank = (v: number) => v == null || Number.isNaN(v);
  const [text, setText] = useState(blank(value) ? '' : String(value));
  useEffect(() => {
    if (!blank(value) && Number(text) !== value) setText(String(value));
  }, [value]);
  const local = text.trim() === '' ? `${label} is empty: enter a number` : Number.isFinite(Number(text)) ? undefined : `${label} must be a number`;
  const shown = local ?? error;
  return (
    <label className={`field ${shown ? 'invalid' : warning ? 'warned' : ''}`} title={title}>
      <span>{label}</span>
      <span className="field-input">
        <input
          type="number"
          value={text}
          min={min}
          max={max}
          step={step ?? 'any'}
          data-testid={testId}
          aria-invalid={shown ? true : undefined}
          onChange={(e) => {
            setText(e.target.value);
            const n = Number(e.target.value);
            onChange(e.target.value.trim() !== '' && Number.isFinite(n) ? n : NaN);
          }}
        />
        {unit && <span className="unit">{unit}</span>}
      </span>
      <FieldMessage error={shown} testId={testId} />
      {!shown && <FieldWarning warning={warning} testId={testId} />}
    </label>
  );
}

export function SelectField<T extends string>({ label, value, options, onChange, testId }: { label: string; value: T; options: readonly (T | { value: T; label: string })[]; onChange(v: T): void; testId?: string }) {
  return (
    <label className="field">
      <span>{label}</span>
      <select value={value} data-testid={testId} onChange={(e) => onChange(e.target.value as T)}>
        {options.map((o) => {
          const v = typeof o === 'string' ? o : o.value;
          const l = typeof o === 'string' ? o : o.label;
          return (
            <option key={v} value={v}>
              {l}
            </option>
          );
        })}
      </select>
    </label>
  );
}

export function CheckField({ label, checked, onChange, testId, title }: { label: string; checked: boolean; onChange(v: boolean): void; testId?: string; title?: string }) {
  return (
    <label className="check" title={title}>
      <input type="checkbox" checked={checked} data-testid={testId} onChange={(e) => onChange(e.target.checked)} />
      <span>{label}</span>
    </label>
  );
}
