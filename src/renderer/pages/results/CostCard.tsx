// The Results page's cost and carbon: the tariff fields (empty: nothing priced) and, per workload group, the
// engine's `cost` per cap in the words and formats of the CLI and the report (src/shared/cost-format.ts).
import type { AnalysisGroup, AnalysisResult } from '../../../shared/analysis';
import { costBasisText, costCells, costHeaders, costTotalText, tariffText } from '../../../shared/cost-format';
import type { PageTariff } from './use-analysis';
import { FieldMessage } from '../../components/Fields';

/** The fields as typed: empty or not a number >= 0 is "not given". */
export interface TariffText {
  price: string;
  carbon: string;
  currency: string;
}

const rate = (text: string) => {
  const n = Number(text);
  return text.trim() !== '' && Number.isFinite(n) && n >= 0 ? n : undefined;
};

/** The tariff the fields give; null when neither a price nor an intensity is given. */
export function pageTariff(t: TariffText): PageTariff | null {
  const price_per_mwh = rate(t.price);
  const carbon_g_per_kwh = rate(t.carbon);
  if (price_per_mwh === undefined && carbon_g_per_kwh === undefined) return null;
  return { price_per_mwh, carbon_g_per_kwh, currency: t.currency.trim() || 'USD' };
}

function Optional({ label, value, unit, onChange, testId, wide }: { label: string; value: string; unit?: string; onChange(v: string): void; testId: string; wide?: boolean }) {
  const bad = value.trim() !== '' && (wide ? false : rate(value) === undefined);
  return (
    <label className={`field ${bad ? 'invalid' : ''}`}>
      <span>{label}</span>
      <span className="field-input">
        <input type={wide ? 'text' : 'number'} min={wide ? undefined : 0} step="any" value={value} placeholder={wide ? 'USD' : 'not set'} onChange={(e) => onChange(e.target.value)} data-testid={testId} aria-invalid={bad || undefined} size={wide ? 5 : undefined} />
        {unit && <span className="unit">{unit}</span>}
      </span>
      <FieldMessage error={bad ? `${label} must be a number ≥ 0` : undefined} testId={testId} />
    </label>
  );
}

/** Price, grid intensity and currency: what the analysis (and the Export) prices the measured energy with. */
export function TariffFields({ value, onChange }: { value: TariffText; onChange(v: TariffText): void }) {
  return (
    <div className="row tariff-fields" data-testid="tariff-fields">
      <Optional label="Price" unit="per MWh" value={value.price} onChange={(price) => onChange({ ...value, price })} testId="tariff-price" />
      <Optional label="Currency" value={value.currency} onChange={(currency) => onChange({ ...value, currency })} testId="tariff-currency" wide />
      <Optional label="Grid intensity" unit="g CO2e/kWh" value={value.carbon} onChange={(carbon) => onChange({ ...value, carbon })} testId="tariff-carbon" />
      <span className="muted small">cost and carbon of the measured energy; leave empty for none</span>
    </div>
  );
}

/** The group's cost and carbon per cap, and the sweep total; nothing without a tariff. */
export function CostCard({ g, result }: { g: AnalysisGroup; result: AnalysisResult }) {
  const cost = result.cost;
  const cg = cost?.groups.find((x) => x.workload === g.workload && x.device_model === g.device_model);
  if (!cost || !cg) return null;
  return (
    <div className="card" data-testid="cost-card">
      <h3>Cost and carbon</h3>
      <p className="small muted">{tariffText(cost)}</p>
      <table className="table small" data-testid="cost-table">
        <thead>
          <tr>
            {costHeaders(cost, g.units).map((h) => (
              <th key={h}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {cg.caps.map((c) => (
            <tr key={c.cap_w} data-cap={c.cap_w}>
              {costCells(c).map((x, i) => (
                <td key={i}>{x}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="small" data-testid="cost-total">
        {costTotalText(cost)}
      </p>
      <p className="small muted">{costBasisText(cost)}</p>
      {cost.notes.map((n) => (
        <p className="small muted" key={n}>
          {n}
        </p>
      ))}
    </div>
  );
}
