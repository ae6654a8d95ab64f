import { useEffect, useState } from 'react';

/** A number input that lets the user type freely and reports finite numbers only. */
export function NumberField({ label, value, onChange, min, max, step, unit, testId, title }: { label: string; value: number; onChange(v: number): void; min?: number; max?: number; step?: number; unit?: string; testId?: string; title?: string }) {
  const [text, setText] = useState(String(value));
  useEffect(() => {
    if (Number(text) !== value) setText(String(value));
  }, [value]);
  return (
    <label className="field" title={title}>
      <span>{label}</span>
      <span className="field-input">
        <input
          type="number"
          value={text}
          min={min}
          max={max}
          step={step ?? 'any'}
          data-testid={testId}
          onChange={(e) => {
            setText(e.target.value);
            const n = Number(e.target.value);
            if (e.target.value.trim() !== '' && Number.isFinite(n)) onChange(n);
          }}
        />
        {unit && <span className="unit">{unit}</span>}
      </span>
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
