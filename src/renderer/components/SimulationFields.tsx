import { FieldMessage, NumberField } from './Fields';
import { SimBadge } from './Badges';
import type { ReactNode } from 'react';

/** The simulated backend's speed-up and presets (the designer's plan, the tune page's session). */
export function SimulationFields(p: {
  speedup: number;
  presets: string;
  onChange(patch: { simSpeedup?: number; simDevices?: string }): void;
  /** Test ids `${prefix}sim-speedup`, `${prefix}sim-devices`. */
  testPrefix?: string;
  speedupError?: string;
  presetsError?: string;
  children?: ReactNode;
}) {
  const id = (name: string) => `${p.testPrefix ?? ''}${name}`;
  return (
    <fieldset className="group">
      <legend>
        Simulation <SimBadge />
      </legend>
      <div className="row wrap">
        <NumberField label="Speed-up" value={p.speedup} min={1} max={1000} unit="×" onChange={(simSpeedup) => p.onChange({ simSpeedup })} testId={id('sim-speedup')} error={p.speedupError} title="Simulated time runs this many times faster than wall time" />
        <label className="field wide">
          <span>Presets, one per device</span>
          <input value={p.presets} placeholder="h100-sxm, h200, mi300x, a100-sxm, rtx-4090" data-testid={id('sim-devices')} onChange={(e) => p.onChange({ simDevices: e.target.value })} />
          <FieldMessage error={p.presetsError} testId={id('sim-devices')} />
        </label>
      </div>
      {p.children}
    </fieldset>
  );
}
